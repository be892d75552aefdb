//! The resume picker (`/resume`): the stored sessions, newest first.

use crate::term::app::effect::SessionEntry;
use crate::term::style::{Style, StyledLine};

use super::view::{item, row, step, Outcome, ScreenKey, View};

/// The stored sessions and the highlighted one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePicker {
    pub entries: Vec<SessionEntry>,
    pub selected: usize,
}

impl ResumePicker {
    pub fn key(&mut self, key: ScreenKey) -> Outcome {
        match key {
            ScreenKey::Up | ScreenKey::Down => {
                self.selected = step(self.selected, self.entries.len(), key);
            }
            ScreenKey::Accept => {
                return match self.entries.get(self.selected) {
                    Some(entry) => Outcome::Resume(entry.id.clone()),
                    None => Outcome::Close,
                };
            }
            _ => {}
        }
        Outcome::Stay
    }

    pub fn rows(&self, view: &View, rows: &mut Vec<StyledLine>) -> &'static str {
        rows.push(row("Resume a session", Style::plain().bold(), view.width));
        rows.push(StyledLine::new());
        let now = i64::try_from(view.now).unwrap_or(i64::MAX);
        let room = view.height.saturating_sub(4);
        let start = self.selected.saturating_add(1).saturating_sub(room);
        for (i, e) in self.entries.iter().enumerate().skip(start).take(room) {
            let (mark, style) = item(i == self.selected);
            let title = if e.title.is_empty() {
                "(untitled)"
            } else {
                &e.title
            };
            let text = format!("{mark}{title} · {} · {}", when(e.updated_at_ms, now), e.id);
            rows.push(row(&text, style, view.width));
        }
        "↑↓ Navigate    Enter Resume    Esc Close"
    }
}

/// How long ago `ms` was: `12s ago`, `5m ago`, `3h ago`, `2d ago`.
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
