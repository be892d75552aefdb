//! The transcript review (Ctrl+O): the whole transcript with every command's full output,
//! scrolled from the bottom.

use crate::term::style::StyledLine;

use super::view::{Outcome, ScreenKey, View};

/// The review, `scroll` rows up from the bottom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    pub scroll: usize,
}

impl Review {
    pub fn key(&mut self, key: ScreenKey, height: usize) -> Outcome {
        let page = height.saturating_sub(2);
        match key {
            ScreenKey::Up => self.scroll = self.scroll.saturating_add(1),
            ScreenKey::Down => self.scroll = self.scroll.saturating_sub(1),
            ScreenKey::PageUp => self.scroll = self.scroll.saturating_add(page),
            ScreenKey::PageDown => self.scroll = self.scroll.saturating_sub(page),
            ScreenKey::Quit | ScreenKey::Type('q') => return Outcome::Close,
            _ => {}
        }
        Outcome::Stay
    }

    pub fn rows(&self, view: &View, rows: &mut Vec<StyledLine>) -> &'static str {
        let all = view.transcript.review_rows(view.width);
        let room = view.height.saturating_sub(1);
        let end = all
            .len()
            .saturating_sub(self.scroll)
            .max(room.min(all.len()));
        let start = end.saturating_sub(room);
        rows.extend(all.into_iter().skip(start).take(end - start));
        "↑↓ PgUp PgDn Scroll    Esc Close"
    }
}
