//! Screens on the alternate screen: help (searchable), the model catalog / picker, the
//! transcript review (full tool output) and the resume picker.

use super::commands::COMMANDS;
use super::transcript::{tool_rows, Block};
use super::{App, Effect, SessionEntry};
use crate::term::keys::{KeyCode, KeyEvent, Modifiers};
use crate::term::style::{line_to_ansi, Style, StyledLine, Tone};
use crate::term::width::truncate_to_width;

/// Which screen is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help {
        filter: String,
    },
    /// The catalog; `pick` makes Enter switch to the selected model.
    Models {
        pick: bool,
        selected: usize,
        filter: String,
    },
    /// The whole transcript; `scroll` rows up from the bottom.
    Review {
        scroll: usize,
    },
    Resume {
        entries: Vec<SessionEntry>,
        selected: usize,
    },
    /// The second step of `/model` for a model with reasoning efforts.
    Effort {
        model: String,
        options: Vec<String>,
        selected: usize,
    },
}

impl Overlay {
    pub fn help() -> Self {
        Overlay::Help {
            filter: String::new(),
        }
    }
    pub fn models(app: &App, pick: bool) -> Self {
        let selected = app.models.iter().position(|m| *m == app.model).unwrap_or(0);
        Overlay::Models {
            pick,
            selected,
            filter: String::new(),
        }
    }
    pub fn review() -> Self {
        Overlay::Review { scroll: 0 }
    }
    /// Pasted text goes into a screen's search field.
    pub fn paste(&mut self, text: &str) {
        if let Overlay::Help { filter } | Overlay::Models { filter, .. } = self {
            filter.push_str(&text.replace(['\n', '\t'], " "));
        }
    }
}

const HELP_KEYS: &[(&str, &str)] = &[
    ("Enter", "send the prompt (queued while a turn runs)"),
    ("Shift+Enter, \\ Enter", "new line"),
    ("Esc", "cancel the running turn; twice clears the draft"),
    ("Ctrl+C", "cancel the turn or clear the draft; twice exits"),
    ("Ctrl+D", "exit on an empty draft"),
    ("Up/Down, Ctrl+P/N", "prompt history"),
    ("Ctrl+O", "review the transcript with full command output"),
    ("Shift+Tab", "permissions: ask before each command ⇄ auto"),
    ("Ctrl+A/E/K/U/W/Y", "line editing"),
    ("Ctrl+Z", "undo"),
];

fn row(text: &str, style: Style, width: usize) -> StyledLine {
    // Titles and model ids come from stored data: never let a control sequence through.
    let text = crate::term::sanitize::sanitize(text).replace(['\n', '\t'], " ");
    let (kept, _) = truncate_to_width(&text, width);
    StyledLine::from_span(crate::term::style::Span::new(kept, style))
}

fn when(ms: i64, now_ms: i64) -> String {
    let ago = now_ms.saturating_sub(ms).max(0) / 1000;
    if ago < 60 {
        format!("{ago}s ago")
    } else if ago < 3600 {
        format!("{}m ago", ago / 60)
    } else if ago < 86_400 {
        format!("{}h ago", ago / 3600)
    } else {
        format!("{}d ago", ago / 86_400)
    }
}

impl App {
    pub(crate) fn open_overlay(&mut self, overlay: Overlay) {
        if matches!(overlay, Overlay::Models { .. }) {
            self.want_catalog();
        }
        self.overlay = Some(overlay);
        self.alt_dirty = true;
    }

    fn close_overlay(&mut self) {
        self.overlay = None;
    }

    /// The resume picker's entries (newest first).
    pub fn on_sessions(&mut self, entries: Vec<SessionEntry>) {
        if entries.is_empty() {
            self.notice("Session: no saved sessions yet");
            return;
        }
        self.open_overlay(Overlay::Resume {
            entries,
            selected: 0,
        });
    }

    fn filtered_models(&self, filter: &str) -> Vec<String> {
        let filter = filter.to_lowercase();
        self.models
            .iter()
            .filter(|m| m.to_lowercase().contains(&filter))
            .cloned()
            .collect()
    }

    pub(crate) fn overlay_key(&mut self, key: KeyEvent) {
        let Some(mut overlay) = self.overlay.take() else {
            return;
        };
        self.alt_dirty = true;
        let plain = key.mods.without(Modifiers::SHIFT).is_empty();
        let close = key.code == KeyCode::Escape
            || key == KeyEvent::ctrl('c')
            || (key == KeyEvent::ctrl('o') && matches!(overlay, Overlay::Review { .. }));
        if close {
            self.close_overlay();
            return;
        }
        match &mut overlay {
            Overlay::Help { filter } => match key.code {
                KeyCode::Backspace => {
                    filter.pop();
                }
                KeyCode::Char(c) if plain => filter.push(c),
                KeyCode::Enter | KeyCode::Char('q') => {
                    self.close_overlay();
                    return;
                }
                _ => {}
            },
            Overlay::Models {
                pick,
                selected,
                filter,
            } => {
                let models = self.filtered_models(filter);
                let n = models.len().max(1);
                match key.code {
                    KeyCode::Up => *selected = (*selected + n - 1) % n,
                    KeyCode::Down => *selected = (*selected + 1) % n,
                    KeyCode::Backspace => {
                        filter.pop();
                        *selected = 0;
                    }
                    KeyCode::Char(c) if plain => {
                        filter.push(c);
                        *selected = 0;
                    }
                    KeyCode::Enter => {
                        let chosen = models.get(*selected).cloned();
                        let pick = *pick;
                        self.close_overlay();
                        if let (true, Some(id)) = (pick, chosen) {
                            match self.efforts.get(&id).cloned() {
                                Some(efforts) => {
                                    let mut options = vec!["auto".to_owned()];
                                    options.extend(efforts);
                                    let selected =
                                        options.iter().position(|e| *e == self.effort).unwrap_or(0);
                                    self.open_overlay(Overlay::Effort {
                                        model: id,
                                        options,
                                        selected,
                                    });
                                }
                                None => self.set_model(&id, None),
                            }
                        }
                        return;
                    }
                    _ => {}
                }
            }
            Overlay::Review { scroll } => match key.code {
                KeyCode::Up => *scroll = scroll.saturating_add(1),
                KeyCode::Down => *scroll = scroll.saturating_sub(1),
                KeyCode::PageUp => *scroll = scroll.saturating_add(self.height.saturating_sub(2)),
                KeyCode::PageDown => *scroll = scroll.saturating_sub(self.height.saturating_sub(2)),
                KeyCode::Char('q') => {
                    self.close_overlay();
                    return;
                }
                _ => {}
            },
            Overlay::Effort {
                model,
                options,
                selected,
            } => {
                let n = options.len().max(1);
                match key.code {
                    KeyCode::Up => *selected = (*selected + n - 1) % n,
                    KeyCode::Down => *selected = (*selected + 1) % n,
                    KeyCode::Enter => {
                        let effort = options.get(*selected).cloned();
                        let model = model.clone();
                        self.close_overlay();
                        self.set_model(&model, effort);
                        return;
                    }
                    _ => {}
                }
            }
            Overlay::Resume { entries, selected } => {
                let n = entries.len().max(1);
                match key.code {
                    KeyCode::Up => *selected = (*selected + n - 1) % n,
                    KeyCode::Down => *selected = (*selected + 1) % n,
                    KeyCode::Enter => {
                        let id = entries.get(*selected).map(|e| e.id.clone());
                        self.close_overlay();
                        if let Some(id) = id {
                            if let Some(turn) = self.turn.take() {
                                self.effects.push(super::Effect::Cancel { turn: turn.id });
                            }
                            self.queue.clear();
                            self.switching = true;
                            self.effects.push(Effect::OpenSession(id));
                        }
                        return;
                    }
                    _ => {}
                }
            }
        }
        self.overlay = Some(overlay);
    }

    fn overlay_rows(&self, overlay: &Overlay) -> (Vec<StyledLine>, String) {
        let w = self.width;
        let h = self.height;
        let title = Style::plain().bold();
        let dim = Style::plain().fg(Tone::Secondary);
        let mut rows = Vec::new();
        let hint = match overlay {
            Overlay::Help { filter } => {
                rows.push(row("fx help", title, w));
                rows.push(row(&format!("Search: {filter}"), dim, w));
                rows.push(StyledLine::new());
                let f = filter.to_lowercase();
                for c in COMMANDS {
                    let text = format!("/{}{}", c.name, c.args);
                    if f.is_empty()
                        || text.to_lowercase().contains(&f)
                        || c.description.contains(&f)
                    {
                        rows.push(row(
                            &format!("  {text:<24} {}", c.description),
                            Style::plain(),
                            w,
                        ));
                    }
                }
                rows.push(StyledLine::new());
                for (keys, what) in HELP_KEYS {
                    if f.is_empty() || keys.to_lowercase().contains(&f) || what.contains(&f) {
                        rows.push(row(&format!("  {keys:<24} {what}"), Style::plain(), w));
                    }
                }
                "Type to search    Esc Close".to_owned()
            }
            Overlay::Models {
                pick,
                selected,
                filter,
            } => {
                rows.push(row(
                    if *pick { "Choose a model" } else { "Models" },
                    title,
                    w,
                ));
                rows.push(row(&format!("Search: {filter}"), dim, w));
                rows.push(StyledLine::new());
                let models = self.filtered_models(filter);
                if models.is_empty() {
                    let text = match &self.catalog {
                        _ if !self.models.is_empty() => "  No model matches.".to_owned(),
                        super::CatalogStatus::Failed(why) => format!(
                            "  The model catalog could not be loaded ({why}). Use /model <id>."
                        ),
                        super::CatalogStatus::Loaded => {
                            "  The model catalog lists no models. Use /model <id>.".to_owned()
                        }
                        _ => "  Loading the model catalog…".to_owned(),
                    };
                    rows.push(row(&text, dim, w));
                }
                let room = h.saturating_sub(5);
                let start = selected.saturating_add(1).saturating_sub(room);
                for (i, m) in models.iter().enumerate().skip(start).take(room) {
                    let current = if *m == self.model { " (current)" } else { "" };
                    let efforts = self
                        .efforts
                        .get(m)
                        .map(|e| format!(" · effort: {}", e.join(", ")))
                        .unwrap_or_default();
                    let current = format!("{current}{efforts}");
                    let (mark, style) = if i == *selected {
                        ("❯ ", Style::plain().bold())
                    } else {
                        ("  ", Style::plain())
                    };
                    rows.push(row(&format!("{mark}{m}{current}"), style, w));
                }
                if *pick {
                    "↑↓ Navigate    Enter Use    Esc Close"
                } else {
                    "↑↓ Navigate    Esc Close"
                }
                .to_owned()
            }
            Overlay::Review { scroll } => {
                let mut all = Vec::new();
                for block in self.blocks.iter().chain(self.open.iter()) {
                    match block {
                        Block::Tools(calls) => all.extend(tool_rows(calls, w, true)),
                        other => all.extend(other.rows(w)),
                    }
                    all.push(StyledLine::new());
                }
                let room = h.saturating_sub(1);
                let end = all.len().saturating_sub(*scroll).max(room.min(all.len()));
                let start = end.saturating_sub(room);
                rows.extend(all.into_iter().skip(start).take(end - start));
                "↑↓ PgUp PgDn Scroll    Esc Close".to_owned()
            }
            Overlay::Effort {
                model,
                options,
                selected,
            } => {
                rows.push(row(&format!("Reasoning effort for {model}"), title, w));
                rows.push(StyledLine::new());
                for (i, option) in options.iter().enumerate() {
                    let current = if *option == self.effort {
                        " (current)"
                    } else {
                        ""
                    };
                    let (mark, style) = if i == *selected {
                        ("❯ ", Style::plain().bold())
                    } else {
                        ("  ", Style::plain())
                    };
                    rows.push(row(&format!("{mark}{option}{current}"), style, w));
                }
                "↑↓ Navigate    Enter Use    Esc Close".to_owned()
            }
            Overlay::Resume { entries, selected } => {
                rows.push(row("Resume a session", title, w));
                rows.push(StyledLine::new());
                let now = i64::try_from(self.now).unwrap_or(i64::MAX);
                let room = h.saturating_sub(4);
                let start = selected.saturating_add(1).saturating_sub(room);
                for (i, e) in entries.iter().enumerate().skip(start).take(room) {
                    let (mark, style) = if i == *selected {
                        ("❯ ", Style::plain().bold())
                    } else {
                        ("  ", Style::plain())
                    };
                    let title = if e.title.is_empty() {
                        "(untitled)"
                    } else {
                        &e.title
                    };
                    let text = format!("{mark}{title} · {} · {}", when(e.updated_at_ms, now), e.id);
                    rows.push(row(&text, style, w));
                }
                "↑↓ Navigate    Enter Resume    Esc Close".to_owned()
            }
        };
        (rows, hint)
    }

    pub(crate) fn render_overlay(&mut self, out: &mut crate::term::ansi::Ansi) {
        let Some(overlay) = self.overlay.clone() else {
            return;
        };
        if !self.alt_drawn {
            out.push_str("\u{1b}[?1049h");
            self.alt_drawn = true;
            self.alt_dirty = true;
        }
        if !self.alt_dirty {
            return;
        }
        self.alt_dirty = false;
        let (mut rows, hint) = self.overlay_rows(&overlay);
        let body = self.height.saturating_sub(1);
        rows.truncate(body);
        let palette = self.palette();
        out.push_str(super::frame::SYNC_BEGIN);
        out.push_str("\u{1b}[?25l");
        for r in 0..body {
            out.move_to(r + 1, 1);
            out.push_str("\u{1b}[2K");
            if let Some(line) = rows.get(r) {
                out.push_line(&line_to_ansi(line, &palette));
            }
        }
        out.move_to(self.height, 1);
        out.push_str("\u{1b}[2K");
        let hint = row(&hint, Style::plain().fg(Tone::Secondary), self.width);
        out.push_line(&line_to_ansi(&hint, &palette));
        out.push_str(super::frame::SYNC_END);
    }
}
