//! Screens on the alternate screen, one open at a time: help (searchable), the model catalog
//! and picker with its effort step, the transcript review (full tool output) and the resume
//! picker. Each screen owns its state, its keys and its rows; [`Screens`] holds the open one
//! and paints it.
//!
//! - [`view`]: what screens are drawn from, their keys and outcomes, shared row helpers.
//! - [`help`], [`models`], [`review`], [`resume`]: the screens.

pub mod help;
pub mod models;
pub mod resume;
pub mod review;
pub mod view;

use crate::term::ansi::Ansi;
use crate::term::style::{line_to_ansi, Palette, Style, StyledLine, Tone};

use super::frame::{SYNC_BEGIN, SYNC_END};
use help::Help;
use models::{EffortPicker, ModelPicker};
use resume::ResumePicker;
use review::Review;
use view::{row, Outcome, ScreenKey, View};

/// Which screen is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help(Help),
    Models(ModelPicker),
    Effort(EffortPicker),
    Review(Review),
    Resume(ResumePicker),
}

impl Overlay {
    fn key(&mut self, key: ScreenKey, view: &View) -> Outcome {
        match self {
            Overlay::Help(help) => help.key(key),
            Overlay::Models(picker) => picker.key(key, view),
            Overlay::Effort(picker) => picker.key(key),
            Overlay::Review(review) => review.key(key, view.height),
            Overlay::Resume(picker) => picker.key(key),
        }
    }

    /// The screen's rows and its hint line.
    fn rows(&self, view: &View) -> (Vec<StyledLine>, &'static str) {
        let mut rows = Vec::new();
        let hint = match self {
            Overlay::Help(help) => help.rows(view, &mut rows),
            Overlay::Models(picker) => picker.rows(view, &mut rows),
            Overlay::Effort(picker) => picker.rows(view, &mut rows),
            Overlay::Review(review) => review.rows(view, &mut rows),
            Overlay::Resume(picker) => picker.rows(view, &mut rows),
        };
        (rows, hint)
    }
}

/// The open screen, and whether the alternate screen shows it.
#[derive(Debug, Clone, Default)]
pub struct Screens {
    open: Option<Overlay>,
    /// The alternate screen is entered.
    drawn: bool,
    /// The screen must be painted again.
    dirty: bool,
}

impl Screens {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    pub fn open(&mut self, overlay: Overlay) {
        self.open = Some(overlay);
        self.dirty = true;
    }

    /// Something a screen shows changed: it is painted again.
    pub fn touch(&mut self) {
        self.dirty = true;
    }

    /// A key for the open screen; what it leads to beyond the screen itself (closing it, or
    /// the effort step after the model picker, happen here).
    pub fn key(&mut self, key: ScreenKey, view: &View) -> Outcome {
        self.dirty = true;
        let Some(overlay) = &mut self.open else {
            return Outcome::Stay;
        };
        let close = key == ScreenKey::Close
            || (key == ScreenKey::Review && matches!(overlay, Overlay::Review(_)));
        let outcome = if close {
            Outcome::Close
        } else {
            overlay.key(key, view)
        };
        match outcome {
            Outcome::Stay => {}
            Outcome::ChooseEffort { model } => {
                let efforts = view.catalog.efforts(&model).unwrap_or_default();
                let picker = EffortPicker::new(model.clone(), efforts, view.effort);
                self.open(Overlay::Effort(picker));
                return Outcome::Stay;
            }
            _ => self.open = None,
        }
        outcome
    }

    /// Pasted text goes into the open screen's search field.
    pub fn paste(&mut self, text: &str) {
        if let Some(
            Overlay::Help(Help { filter, .. }) | Overlay::Models(ModelPicker { filter, .. }),
        ) = &mut self.open
        {
            filter.push_str(&text.replace(['\n', '\t'], " "));
        }
        self.dirty = true;
    }

    /// Paints the open screen on the alternate screen (entered first) when it changed.
    pub fn paint(&mut self, out: &mut Ansi, view: &View, palette: &Palette) {
        let Some(overlay) = &self.open else {
            return;
        };
        if !self.drawn {
            out.push_str("\u{1b}[?1049h");
            self.drawn = true;
            self.dirty = true;
        }
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let (mut rows, hint) = overlay.rows(view);
        let body = view.height.saturating_sub(1);
        rows.truncate(body);
        out.push_str(SYNC_BEGIN);
        out.push_str("\u{1b}[?25l");
        for r in 0..body {
            out.move_to(r + 1, 1);
            out.push_str("\u{1b}[2K");
            if let Some(line) = rows.get(r) {
                out.push_line(&line_to_ansi(line, palette));
            }
        }
        out.move_to(view.height, 1);
        out.push_str("\u{1b}[2K");
        let hint = row(hint, Style::plain().fg(Tone::Secondary), view.width);
        out.push_line(&line_to_ansi(&hint, palette));
        out.push_str(SYNC_END);
    }

    /// Leaves the alternate screen when it is entered; true when it was.
    pub fn leave(&mut self, out: &mut Ansi) -> bool {
        if !self.drawn {
            return false;
        }
        out.push_str("\u{1b}[?1049l");
        self.drawn = false;
        true
    }
}
