//! Benchmark support: a deterministic generator of realistic sessions, shared by the native
//! benchmark (`examples/log_bench.rs`) and the wasm side so both measure the same bytes.

use super::appender::{Environment, NewSession, SessionLog, TurnCommit};
use super::execution::{
    Execution, FileAction, FileRecord, ProcessPresentation, ToolCall, ToolResult, ToolStatus,
    ToolStep,
};
use super::turn::{AssistantTurn, HistoryTurn, UserTurn};
use super::types::{DurableBytes, Preferences, Provider};
use super::usage::UsageSnapshot;

/// A deterministic [`Environment`]: xorshift randomness and a clock that advances 1 s per read.
#[derive(Debug, Clone)]
pub struct FixedEnv {
    state: u64,
    now_ms: i64,
}

impl FixedEnv {
    /// Starts at `now_ms` with the given seed.
    pub fn new(seed: u64, now_ms: i64) -> Self {
        Self {
            state: seed | 1,
            now_ms,
        }
    }
}

impl Environment for FixedEnv {
    fn fill_random(&mut self, buf: &mut [u8]) {
        for b in buf {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            *b = (self.state >> 24) as u8;
        }
    }

    fn now_ms(&mut self) -> i64 {
        self.now_ms += 1000;
        self.now_ms
    }

    fn now_ns(&mut self) -> i128 {
        i128::from(self.now_ms) * 1_000_000 + 123_456
    }
}

fn db(text: &str) -> DurableBytes {
    DurableBytes::from(text)
}

/// One realistic turn: a prompt, two tool steps (a command and a file read), file evidence,
/// and a markdown answer.
pub fn sample_turn(i: usize) -> HistoryTurn {
    let listing: String = (0..40).map(|n| format!("src/module_{n}.rs\n")).collect();
    let call = |id: String, name: &str, args: String| ToolCall {
        id: db(&id),
        name: db(name),
        arguments_json: DurableBytes::from(args),
        provider_result: None,
    };
    let result = |id: String, name: &str, output: String, exit: Option<i64>| ToolResult {
        tool_call_id: db(&id),
        tool_name: db(name),
        status: if exit.unwrap_or(0) == 0 {
            ToolStatus::Success
        } else {
            ToolStatus::Failure
        },
        output_bytes: output.len() as u64,
        stored_output_bytes: output.len() as u64,
        output: DurableBytes::from(output),
        output_handle: None,
        preview: None,
        truncated: false,
        provider_native: false,
        created_at_ms: 1_790_000_000_000 + i as i64,
        permission_feedback: Vec::new(),
        committed_file_presentation: None,
        command_output_replay: None,
        command_process_presentation: exit.map(ProcessPresentation::ExitCode),
    };
    let run_id = format!("call_{i}_a");
    let read_id = format!("call_{i}_b");
    HistoryTurn::Assistant(AssistantTurn {
        user: UserTurn { text: DurableBytes::from(format!("Step {i}: list the modules and explain module_{}", i % 40)), images: Vec::new(), work_id: None },
        assistant: DurableBytes::from(format!(
            "## Module {i}\n\nThe module exposes `run()` and `stop()`.\n\n- it reads the config\n- it starts the worker {i}\n\n```rust\nfn run() -> Result<(), Error> {{ Ok(()) }}\n```\n"
        )),
        execution: Execution {
            tool_steps: vec![
                ToolStep {
                    assistant: Some(db("Let me look at the tree first.")),
                    tool_calls: vec![call(run_id.clone(), "terminal", "{\"action\":\"exec\",\"command\":\"ls src\"}".to_owned())],
                    tool_results: vec![result(run_id, "terminal", format!("exit_code=0\n<stdout>\n{listing}</stdout>\n"), Some(0))],
                },
                ToolStep {
                    assistant: None,
                    tool_calls: vec![call(read_id.clone(), "read_file", format!("{{\"path\":\"src/module_{}.rs\"}}", i % 40))],
                    tool_results: vec![result(read_id.clone(), "read_file", format!("<path>src/module_{0}.rs</path>\n<content>\n1\tpub fn run() {{}}\n2\tpub fn stop() {{}}\n</content>", i % 40), None)],
                },
            ],
            files: vec![FileRecord {
                path: DurableBytes::from(format!("src/module_{}.rs", i % 40)),
                new_path: None,
                tool_call_id: DurableBytes::from(read_id),
                tool_name: db("read_file"),
                action: FileAction::Read,
                status: ToolStatus::Success,
                model_view_covers_full_file: true,
                stale: false,
            }],
        },
    })
}

/// Generates a session of `turns` sample turns, each preceded by a usage checkpoint, the way
/// fx writes a turn. Deterministic: the same `turns` always gives the same bytes.
pub fn generate_session(turns: usize) -> Vec<u8> {
    let mut env = FixedEnv::new(0x5eed_1234_abcd_0001, 1_790_000_000_000);
    let prefs = Preferences {
        model: "anthropic/claude-sonnet-4.5".to_owned(),
        effort: "auto".to_owned(),
        fast_mode: false,
        provider: Provider::Gateway,
    };
    let new = NewSession {
        workspace_root: "/workspace".to_owned(),
        preferences: prefs,
        conversation_language: None,
        id: None,
    };
    let Ok(mut session) = SessionLog::create(&mut env, new) else {
        return Vec::new();
    };
    for i in 0..turns {
        let mut usage = UsageSnapshot {
            billing: super::usage::Billing::Incomplete,
            ..UsageSnapshot::default()
        };
        usage.next_sequence = i as u64 + 2;
        usage.settled_through_sequence = i as u64 + 1;
        usage.wall_duration_ms = 1000 * i as u64;
        if session.checkpoint_usage(&mut env, usage).is_err() {
            return Vec::new();
        }
        let commit = TurnCommit {
            turn: sample_turn(i),
            conversation_language: Some("und-Latn".to_owned()),
            total_input_tokens: 1000 * (i as u64 + 1),
            total_output_tokens: 100 * (i as u64 + 1),
            work_id: None,
        };
        if session.commit_turn(&mut env, commit).is_err() {
            return Vec::new();
        }
    }
    session.into_bytes()
}

/// Loads `bytes` and appends `turns` more sample turns (a usage checkpoint and a turn each, as
/// fx commits them); returns the new bytes. Used to time the per-commit append cost.
pub fn append_turns(bytes: Vec<u8>, turns: usize) -> Vec<u8> {
    let mut env = FixedEnv::new(0x5eed_1234_abcd_0002, 1_791_000_000_000);
    let Ok(mut session) = SessionLog::load(bytes) else {
        return Vec::new();
    };
    let start = session.state().history.len();
    for i in start..start + turns {
        let commit = TurnCommit {
            turn: sample_turn(i),
            conversation_language: Some("und-Latn".to_owned()),
            total_input_tokens: 1000 * (i as u64 + 1),
            total_output_tokens: 100 * (i as u64 + 1),
            work_id: None,
        };
        if session.commit_turn(&mut env, commit).is_err() {
            return Vec::new();
        }
    }
    session.into_bytes()
}
