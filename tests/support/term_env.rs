//! A terminal environment for the app's native tests: output into a `vt100` screen, tasks on a
//! `LocalPool`, an in-memory prompt history, recorded downloads and exit codes.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures::executor::{LocalPool, LocalSpawner};
use futures::task::LocalSpawnExt;
use fx_wasm::agent::AgentConfig;
use fx_wasm::term::app::Capabilities;
use fx_wasm::term::driver::{Shell, Task, TermEnv};
use fx_wasm::tools::workspace::RawWorkspace;

use super::fake_host::FakeHost;

/// Files offered for download.
pub type Files = Vec<(String, Vec<u8>)>;

#[derive(Clone)]
pub struct TestEnv {
    pub out: Rc<RefCell<Vec<u8>>>,
    pub writes: Rc<Cell<usize>>,
    spawner: LocalSpawner,
    pub history: Option<Rc<RefCell<Vec<String>>>>,
    pub exited: Rc<Cell<Option<i32>>>,
    pub downloads: Rc<RefCell<Vec<Files>>>,
    /// The host's download refuses with this message.
    pub download_error: Rc<RefCell<Option<String>>>,
    pub animating: Rc<Cell<bool>>,
}

impl TermEnv for TestEnv {
    fn write(&self, out: &fx_wasm::term::ansi::Ansi) {
        self.out.borrow_mut().extend_from_slice(out.as_bytes());
        self.writes.set(self.writes.get() + 1);
    }
    fn spawn(&self, task: Task) {
        self.spawner.spawn_local(task).unwrap();
    }
    /// Frames are not paced here: the repaint runs with the pool's other tasks.
    fn frame(&self, task: Task) {
        self.spawner.spawn_local(task).unwrap();
    }
    fn animate(&self) {
        self.animating.set(true);
    }
    async fn history_load(&self) -> Option<Result<Vec<String>, String>> {
        self.history.as_ref().map(|h| Ok(h.borrow().clone()))
    }
    async fn history_append(&self, text: &str) -> Result<String, String> {
        match &self.history {
            Some(h) => {
                let mut h = h.borrow_mut();
                if h.last().map(String::as_str) == Some(text) {
                    return Ok("duplicate".into());
                }
                h.push(text.to_owned());
                Ok("appended".into())
            }
            None => Ok("appended".into()),
        }
    }
    async fn download(&self, files: Vec<(String, Vec<u8>)>) -> Result<(), String> {
        if let Some(message) = self.download_error.borrow().clone() {
            return Err(message);
        }
        self.downloads.borrow_mut().push(files);
        Ok(())
    }
    fn exited(&self, code: i32) {
        self.exited.set(Some(code));
    }
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap()
}

pub fn workspace(permission: &str) -> RawWorkspace {
    serde_json::from_value(serde_json::json!({
        "info": {"version": 1, "root": "/workspace", "cwd": "/workspace", "home": "/home/visitor",
                 "gitAvailable": false, "ephemeral": true},
        "permission": permission,
    }))
    .unwrap()
}

/// One terminal run: the shell, its pool and a screen.
pub struct Term {
    pub host: FakeHost,
    pub shell: Shell<FakeHost, TestEnv>,
    pub env: TestEnv,
    pub pool: LocalPool,
    pub parser: vt100::Parser,
    fed: usize,
}

pub struct Options {
    pub cols: u16,
    pub rows: u16,
    pub workspace: Option<&'static str>,
    pub history: Option<Rc<RefCell<Vec<String>>>>,
    pub resume: Option<String>,
    /// `AI_GATEWAY_API_KEY` (default `test-key`).
    pub api_key: Option<&'static str>,
    /// More env entries.
    pub env: Vec<(&'static str, String)>,
    /// The host has `oauthSessionStore` and `openUrl`.
    pub oauth: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cols: 80,
            rows: 24,
            workspace: None,
            history: Some(Rc::new(RefCell::new(Vec::new()))),
            resume: None,
            api_key: Some("test-key"),
            env: Vec::new(),
            oauth: false,
        }
    }
}

impl Term {
    pub fn start(host: &FakeHost, options: Options) -> Term {
        let pool = LocalPool::new();
        let env = TestEnv {
            out: Rc::default(),
            writes: Rc::default(),
            spawner: pool.spawner(),
            history: options.history.clone(),
            exited: Rc::default(),
            downloads: Rc::default(),
            download_error: Rc::default(),
            animating: Rc::default(),
        };
        let ws = options.workspace.map(workspace);
        let mut vars: HashMap<String, String> = options
            .env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        if let Some(key) = options.api_key {
            vars.insert("AI_GATEWAY_API_KEY".to_owned(), key.to_owned());
        }
        let config = AgentConfig::from_env(&vars, ws.as_ref()).unwrap();
        let caps = Capabilities {
            history_store: options.history.is_some(),
            session_store: true,
            downloads: true,
            oauth: options.oauth,
            workspace: ws.is_some(),
            credential: options.api_key.is_some(),
            // Shell::new reads it from the workspace.
            sandboxed: false,
            esc_then_tab_leaves: false,
        };
        let shell = Shell::new(
            host.clone(),
            config,
            env.clone(),
            (options.cols, options.rows),
            caps,
        );
        let mut term = Term {
            host: host.clone(),
            shell,
            env,
            pool,
            parser: vt100::Parser::new(nz(options.rows), nz(options.cols), 1000),
            fed: 0,
        };
        let shell = term.shell.clone();
        let resume = options.resume.clone();
        term.pool
            .spawner()
            .spawn_local(async move { shell.start(resume).await })
            .unwrap();
        term.run();
        term
    }

    /// Runs every task until none can progress, then feeds the output to the screen.
    pub fn run(&mut self) {
        self.pool.run_until_stalled();
        self.sync();
    }

    pub fn sync(&mut self) {
        let out = self.env.out.borrow();
        if let Some(new) = out.get(self.fed..) {
            self.parser.process(new);
        }
        self.fed = out.len();
    }

    pub fn type_str(&mut self, text: &str) {
        self.shell.input(text.as_bytes());
        self.run();
    }

    /// Input without running tasks (so a turn does not start yet).
    pub fn type_only(&mut self, text: &str) {
        self.shell.input(text.as_bytes());
        self.sync();
    }

    pub fn advance(&mut self, ms: i64) {
        self.host.state.borrow_mut().now_ms += ms;
        self.host.wake_sleepers();
        self.shell.tick();
        self.run();
    }

    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.parser.screen_mut().set_size(nz(rows), nz(cols));
        self.shell.resize(cols, rows);
        self.run();
    }

    pub fn screen(&self) -> String {
        self.parser.screen().contents()
    }

    /// Screen plus scrollback, top to bottom.
    pub fn all_text(&mut self) -> String {
        let rows = usize::from(self.parser.screen().size().0.get());
        let mut pages = Vec::new();
        let mut offset = 0usize;
        loop {
            self.parser.screen_mut().set_scrollback(offset);
            let got = self.parser.screen().scrollback();
            if got < offset {
                break;
            }
            pages.push(self.parser.screen().contents());
            if offset > 1000 {
                break;
            }
            offset += rows;
        }
        self.parser.screen_mut().set_scrollback(0);
        let _ = pages.len();
        // The scrollback pages overlap; a simple join is enough for "contains" checks.
        pages.reverse();
        pages.join("\n")
    }

    pub fn written(&self) -> String {
        String::from_utf8_lossy(&self.env.out.borrow()).into_owned()
    }

    /// The whole screen as text: a header line (size, which screen, where the cursor is), then
    /// every row with its trailing blanks trimmed (the crate's version reads `<version>`).
    pub fn snapshot(&self) -> String {
        let screen = self.parser.screen();
        let (rows, cols) = screen.size();
        let (row, col) = screen.cursor_position();
        let cursor = if screen.hide_cursor() {
            "hidden".to_owned()
        } else {
            format!("at row {} column {}", row + 1, col + 1)
        };
        let which = if screen.alternate_screen() {
            "alternate"
        } else {
            "main"
        };
        let mut text = format!("# {cols}x{rows}, {which} screen, cursor {cursor}\n");
        for line in screen.rows(0, cols.get()) {
            let line = line.replace(env!("CARGO_PKG_VERSION"), "<version>");
            text.push_str(line.trim_end());
            text.push('\n');
        }
        text
    }

    /// Compares the whole screen with the golden text `tests/fixtures/term-screens/<name>.txt`;
    /// `FX_BLESS=1` writes it anew.
    pub fn assert_screen(&self, name: &str) {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/term-screens")
            .join(format!("{name}.txt"));
        let shown = self.snapshot();
        if std::env::var_os("FX_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &shown).unwrap();
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; FX_BLESS=1 writes it", path.display()));
        assert!(
            golden == shown,
            "the screen differs from {} (FX_BLESS=1 rewrites it)\n--- golden\n{golden}--- shown\n{shown}",
            path.display()
        );
    }
}
