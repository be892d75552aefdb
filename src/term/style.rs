//! Styled text for the screen: spans with style flags, lines of spans, the light/dark palette,
//! and the conversion of lines to ANSI SGR bytes.
//!
//! Styles carry semantic [`Tone`]s rather than colour numbers, so a theme change needs no
//! re-render: only [`to_ansi`] consults the [`Palette`]. A [`Span`]'s text passes
//! [`crate::term::sanitize::sanitize_fragment`] when the span is built or grows, so it holds no
//! control character and the only escape sequences in the output are the SGR codes written
//! here.

use super::ansi::AnsiLine;
use super::sanitize::sanitize_fragment;
use super::width::str_width;

/// A semantic colour, mapped to a 256-colour index by the [`Palette`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tone {
    /// Secondary text: inline code, link URLs, code-block labels.
    Secondary,
    /// Box and rule lines.
    Border,
    /// Code keywords.
    Keyword,
    /// Code string literals.
    String,
    /// Code numbers and literals (`true`, `null`).
    Number,
    /// Code comments.
    Comment,
}

/// How a span is drawn. The default is the terminal's own foreground with no attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Style {
    /// SGR 1.
    pub bold: bool,
    /// SGR 2.
    pub dim: bool,
    /// SGR 3.
    pub italic: bool,
    /// SGR 4.
    pub underline: bool,
    /// SGR 9.
    pub strike: bool,
    /// Foreground colour, if any.
    pub fg: Option<Tone>,
}

impl Style {
    /// The plain style.
    #[must_use]
    pub const fn plain() -> Self {
        Self {
            bold: false,
            dim: false,
            italic: false,
            underline: false,
            strike: false,
            fg: None,
        }
    }
    /// With bold.
    #[must_use]
    pub const fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    /// With dim.
    #[must_use]
    pub const fn dim(mut self) -> Self {
        self.dim = true;
        self
    }
    /// With italic.
    #[must_use]
    pub const fn italic(mut self) -> Self {
        self.italic = true;
        self
    }
    /// With underline.
    #[must_use]
    pub const fn underline(mut self) -> Self {
        self.underline = true;
        self
    }
    /// With strikethrough.
    #[must_use]
    pub const fn strike(mut self) -> Self {
        self.strike = true;
        self
    }
    /// With a foreground tone.
    #[must_use]
    pub const fn fg(mut self, tone: Tone) -> Self {
        self.fg = Some(tone);
        self
    }
}

/// A run of text in one style.
///
/// Invariant: the text is sanitized (no control or bidirectional character, no line end): every
/// way to set it goes through [`sanitize_fragment`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    text: String,
    /// Its style.
    pub style: Style,
}

impl Span {
    /// A span of `text` (sanitized) in `style`.
    #[must_use]
    pub fn new(text: impl AsRef<str> + Into<String>, style: Style) -> Self {
        let text = match sanitize_fragment(text.as_ref()) {
            std::borrow::Cow::Borrowed(_) => text.into(),
            std::borrow::Cow::Owned(clean) => clean,
        };
        Self { text, style }
    }
    /// An unstyled span.
    #[must_use]
    pub fn plain(text: impl AsRef<str> + Into<String>) -> Self {
        Self::new(text, Style::plain())
    }
    /// The text.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Appends `more` (sanitized).
    pub fn push_str(&mut self, more: &str) {
        self.text.push_str(&sanitize_fragment(more));
    }
}

/// One screen row: spans in order. Its width never exceeds the width it was laid out for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StyledLine {
    /// The spans.
    pub spans: Vec<Span>,
}

impl StyledLine {
    /// An empty line.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
    /// A line of one span.
    #[must_use]
    pub fn from_span(span: Span) -> Self {
        Self { spans: vec![span] }
    }
    /// A line of `text` in one style (no span at all for empty text).
    #[must_use]
    pub fn of(text: &str, style: Style) -> Self {
        let mut line = Self::new();
        line.push(text, style);
        line
    }
    /// Appends text in a style, merging with the last span when the style matches.
    pub fn push(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.push_str(text),
            _ => self.spans.push(Span::new(text, style)),
        }
    }
    /// Appends every span of `other`.
    pub fn extend(&mut self, other: &[Span]) {
        for s in other {
            match self.spans.last_mut() {
                Some(last) if last.style == s.style => last.text.push_str(&s.text),
                _ => self.spans.push(s.clone()),
            }
        }
    }
    /// Display width in cells.
    #[must_use]
    pub fn width(&self) -> usize {
        self.spans.iter().map(|s| str_width(&s.text)).sum()
    }
    /// The text without styles.
    #[must_use]
    pub fn plain_text(&self) -> String {
        self.spans.iter().map(Span::text).collect()
    }
    /// The line cut to `width` cells, ending in `…` (in the style of the text it replaces)
    /// when something was cut; unchanged when it fits.
    #[must_use]
    pub fn elided(self, width: usize) -> StyledLine {
        if self.width() <= width {
            return self;
        }
        let mut out = StyledLine::new();
        let mut room = width.saturating_sub(1);
        let mut last_style = Style::plain();
        for span in self.spans {
            let (kept, used) = crate::term::width::truncate_to_width(&span.text, room);
            out.push(kept, span.style);
            last_style = span.style;
            room = room.saturating_sub(used);
            if kept.len() < span.text.len() {
                break;
            }
        }
        if width > 0 {
            out.push("…", last_style);
        }
        out
    }
}

/// 256-colour indices for each [`Tone`], for a dark or a light background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// [`Tone::Secondary`].
    pub secondary: u8,
    /// [`Tone::Border`].
    pub border: u8,
    /// [`Tone::Keyword`].
    pub keyword: u8,
    /// [`Tone::String`].
    pub string: u8,
    /// [`Tone::Number`].
    pub number: u8,
    /// [`Tone::Comment`].
    pub comment: u8,
}

impl Palette {
    /// For dark backgrounds (the default).
    #[must_use]
    pub const fn dark() -> Self {
        Self {
            secondary: 245,
            border: 240,
            keyword: 176,
            string: 114,
            number: 180,
            comment: 244,
        }
    }
    /// For light backgrounds.
    #[must_use]
    pub const fn light() -> Self {
        Self {
            secondary: 243,
            border: 250,
            keyword: 127,
            string: 28,
            number: 130,
            comment: 245,
        }
    }
    fn index(&self, tone: Tone) -> u8 {
        match tone {
            Tone::Secondary => self.secondary,
            Tone::Border => self.border,
            Tone::Keyword => self.keyword,
            Tone::String => self.string,
            Tone::Number => self.number,
            Tone::Comment => self.comment,
        }
    }
}

impl Default for Palette {
    fn default() -> Self {
        Self::dark()
    }
}

fn sgr(style: Style, palette: &Palette, out: &mut String) {
    out.push_str("\u{1b}[0");
    for (on, code) in [
        (style.bold, ";1"),
        (style.dim, ";2"),
        (style.italic, ";3"),
        (style.underline, ";4"),
        (style.strike, ";9"),
    ] {
        if on {
            out.push_str(code);
        }
    }
    if let Some(t) = style.fg {
        out.push_str(";38;5;");
        out.push_str(&palette.index(t).to_string());
    }
    out.push('m');
}

/// One line as text with SGR codes; the style is reset at the end when any was set. No newline.
#[must_use]
pub fn line_to_ansi(line: &StyledLine, palette: &Palette) -> AnsiLine {
    AnsiLine::from_rendered(row_ansi(line, palette))
}

fn row_ansi(line: &StyledLine, palette: &Palette) -> String {
    let mut out = String::new();
    let mut current = Style::plain();
    for span in &line.spans {
        if span.text().is_empty() {
            continue;
        }
        if span.style != current {
            sgr(span.style, palette, &mut out);
            current = span.style;
        }
        out.push_str(&span.text);
    }
    if current != Style::plain() {
        out.push_str("\u{1b}[0m");
    }
    out
}

/// Lines as text with SGR codes, each followed by `\r\n`.
#[must_use]
pub fn to_ansi(lines: &[StyledLine], palette: &Palette) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(&row_ansi(line, palette));
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_only_on_change_and_reset_at_end() {
        let mut line = StyledLine::new();
        line.push("a ", Style::plain());
        line.push("b", Style::plain().bold());
        line.push("c", Style::plain().bold());
        line.push("d", Style::plain().fg(Tone::Keyword).italic());
        let dark = line_to_ansi(&line, &Palette::dark());
        assert_eq!(
            dark.as_str(),
            "a \u{1b}[0;1mbc\u{1b}[0;3;38;5;176md\u{1b}[0m"
        );
        let light = line_to_ansi(&line, &Palette::light());
        assert!(light.as_str().contains("38;5;127m"));
        assert_eq!(line.width(), 5);
        assert_eq!(
            line_to_ansi(&StyledLine::from_span(Span::plain("x")), &Palette::dark()).as_str(),
            "x"
        );
    }

    #[test]
    fn span_text_is_sanitized_however_it_is_set() {
        let mut line = StyledLine::new();
        line.push("a\u{1b}]52;c;QQ==\u{7}", Style::plain());
        line.push("\u{9b}2Jb\u{202e}", Style::plain());
        line.push("\tc\n", Style::plain().bold());
        let mut span = Span::new("\u{1b}[31md", Style::plain());
        span.push_str("\u{1b}P1$q\u{1b}\\e");
        line.extend(&[span]);
        assert_eq!(line.plain_text(), "ab c de");
        let ansi = line_to_ansi(&line, &Palette::dark());
        assert_eq!(
            crate::term::ansi::audit(ansi.as_str(), crate::term::ansi::Allowed::Row),
            Ok(())
        );
    }
}
