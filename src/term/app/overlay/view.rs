//! What every screen is drawn from ([`View`]), the keys it takes ([`ScreenKey`]) and what a key
//! leads to ([`Outcome`]), and the row helpers the screens share.

use crate::term::style::{Span, Style, StyledLine};
use crate::term::width::truncate_to_width;

use crate::gateway::Effort;
use crate::term::app::catalog::ModelCatalog;
use crate::term::app::transcript::Transcript;

/// What the screens show besides their own state.
pub struct View<'a> {
    pub width: usize,
    pub height: usize,
    pub now: u64,
    pub catalog: &'a ModelCatalog,
    /// The session's model and effort.
    pub model: &'a str,
    pub effort: &'a Effort,
    pub transcript: &'a Transcript,
}

/// What a key does on a screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenKey {
    /// Esc, Ctrl+C.
    Close,
    /// Ctrl+O (closes the review it opened).
    Review,
    Up,
    Down,
    PageUp,
    PageDown,
    /// Backspace in a search field.
    Erase,
    /// Enter.
    Accept,
    /// `q` with a modifier (a plain `q` is typed).
    Quit,
    /// Typed into a search field.
    Type(char),
}

/// What a key led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    Close,
    /// Use this model (with this effort, when given).
    SetModel {
        model: String,
        effort: Option<String>,
    },
    /// The model has reasoning efforts: the effort picker comes next.
    ChooseEffort {
        model: String,
    },
    /// Reopen this stored session.
    Resume(String),
}

/// One row of text, sanitized (titles and model ids come from stored data: never let a control
/// sequence through) and cut to `width`.
pub fn row(text: &str, style: Style, width: usize) -> StyledLine {
    let text = crate::term::sanitize::sanitize(text).replace(['\n', '\t'], " ");
    let (kept, _) = truncate_to_width(&text, width);
    StyledLine::from_span(Span::new(kept, style))
}

/// The marker and style of a list entry: `❯ ` in bold when highlighted.
pub fn item(selected: bool) -> (&'static str, Style) {
    if selected {
        ("❯ ", Style::plain().bold())
    } else {
        ("  ", Style::plain())
    }
}

/// The highlight moved one entry up or down a list of `n`, wrapping around.
pub fn step(selected: usize, n: usize, key: ScreenKey) -> usize {
    let n = n.max(1);
    match key {
        ScreenKey::Up => (selected + n - 1) % n,
        ScreenKey::Down => (selected + 1) % n,
        _ => selected,
    }
}
