//! Streaming markdown → styled, word-wrapped rows for a terminal of a given width.
//!
//! Feed the model's text deltas (any size, split anywhere, even inside a UTF-8 character's
//! escape sequence or a table delimiter) to [`MarkdownStream::push`]. Rows whose content can no
//! longer change are *committed* ([`MarkdownStream::committed`]): print them once. The rest is
//! the *tail* ([`MarkdownStream::tail`]): a preview of the unfinished line and of held blocks
//! (a table still receiving rows, an open code box with a provisional bottom edge), to be
//! repainted on each change. [`MarkdownStream::finish`] commits the tail.
//! [`MarkdownStream::set_width`] re-renders everything from the kept source after a resize.
//!
//! Supported: paragraphs (a single newline is a line break), ATX headings, nested bullet,
//! numbered and task lists, block quotes, rules, fenced code with highlighting (see
//! `highlight`), pipe tables drawn as boxes, inline code, bold, italic, strikethrough, links
//! (text, then the URL dimmed) and autolinks. Input passes through the [`Sanitizer`] first, so
//! no control sequence from the model reaches the terminal. Tables are never shown as raw
//! pipes: a possible table line is held until the next line tells whether a table starts.

mod blocks;
mod highlight;
mod inline;
mod table;
mod wrap;

use crate::term::sanitize::Sanitizer;
use crate::term::style::StyledLine;
use blocks::Blocks;

/// Layout settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Terminal width in cells (rows never exceed it; at least 4: below `margin + 4` the margin
    /// shrinks).
    pub width: usize,
    /// Blank cells before every row (the assistant's left margin).
    pub margin: usize,
}

impl MarkdownOptions {
    /// `width` cells with the default 2-cell margin.
    #[must_use]
    pub fn new(width: usize) -> Self {
        Self { width, margin: 2 }
    }
}

/// A markdown stream being rendered. See the module docs.
#[derive(Debug, Clone)]
pub struct MarkdownStream {
    options: MarkdownOptions,
    sanitizer: Sanitizer,
    /// Sanitized source received so far.
    source: String,
    /// Byte offset in `source` where the unfinished last line starts.
    line_start: usize,
    blocks: Blocks,
    committed: Vec<StyledLine>,
    finished: bool,
}

impl MarkdownStream {
    /// An empty stream.
    #[must_use]
    pub fn new(options: MarkdownOptions) -> Self {
        Self {
            options,
            sanitizer: Sanitizer::new(),
            source: String::new(),
            line_start: 0,
            blocks: Blocks::new(options.width, options.margin),
            committed: Vec::new(),
            finished: false,
        }
    }

    /// Adds a delta. Returns how many rows were committed by it. Ignored after
    /// [`Self::finish`].
    pub fn push(&mut self, delta: &str) -> usize {
        if self.finished {
            return 0;
        }
        let clean = self.sanitizer.feed(delta);
        self.append(&clean)
    }

    fn append(&mut self, clean: &str) -> usize {
        let before = self.committed.len();
        // Only the new text can hold a newline: the unfinished line had none.
        let mut search = self.source.len();
        self.source.push_str(clean);
        while let Some(nl) = self.source.get(search..).and_then(|r| r.find('\n')) {
            let end = search + nl;
            let line = self
                .source
                .get(self.line_start..end)
                .unwrap_or("")
                .to_owned();
            self.blocks.line(&line, &mut self.committed);
            self.line_start = end + 1;
            search = self.line_start;
        }
        self.committed.len() - before
    }

    /// Rows that are final. Only ever grows, until [`Self::set_width`].
    #[must_use]
    pub fn committed(&self) -> &[StyledLine] {
        &self.committed
    }

    /// The provisional rows after the committed ones. Empty after [`Self::finish`].
    #[must_use]
    pub fn tail(&self) -> Vec<StyledLine> {
        let mut preview = self.blocks.clone();
        let mut out = Vec::new();
        let partial = self.source.get(self.line_start..).unwrap_or("");
        if !preview.hides_partial(partial) {
            preview.line(partial, &mut out);
        }
        preview.finish_preview(&mut out);
        out
    }

    /// Ends the stream: the unfinished line and held blocks are committed. Returns how many
    /// rows that added.
    pub fn finish(&mut self) -> usize {
        if self.finished {
            return 0;
        }
        let rest = self.sanitizer.finish();
        let mut added = self.append(&rest);
        let before = self.committed.len();
        let partial = self.source.get(self.line_start..).unwrap_or("").to_owned();
        if !partial.is_empty() {
            self.blocks.line(&partial, &mut self.committed);
            self.line_start = self.source.len();
        }
        self.blocks.finish(&mut self.committed);
        added += self.committed.len() - before;
        self.finished = true;
        added
    }

    /// True after [`Self::finish`].
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Committed rows followed by the tail: the whole reply as it stands.
    #[must_use]
    pub fn lines(&self) -> Vec<StyledLine> {
        let mut all = self.committed.clone();
        all.extend(self.tail());
        all
    }

    /// Re-renders from the source for a new width. Committed rows are replaced (the caller
    /// repaints); the stream stays open or finished as it was.
    pub fn set_width(&mut self, width: usize) {
        self.options.width = width;
        self.blocks = Blocks::new(width, self.options.margin);
        self.committed.clear();
        self.line_start = 0;
        let source = std::mem::take(&mut self.source);
        self.append(&source);
        if self.finished {
            self.finished = false;
            let partial = self.source.get(self.line_start..).unwrap_or("").to_owned();
            if !partial.is_empty() {
                self.blocks.line(&partial, &mut self.committed);
                self.line_start = self.source.len();
            }
            self.blocks.finish(&mut self.committed);
            self.finished = true;
        }
    }

    /// The sanitized source received so far.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The layout settings.
    #[must_use]
    pub fn options(&self) -> MarkdownOptions {
        self.options
    }
}

/// Renders a complete markdown text.
#[must_use]
pub fn render_markdown(text: &str, options: MarkdownOptions) -> Vec<StyledLine> {
    let mut s = MarkdownStream::new(options);
    s.push(text);
    s.finish();
    s.committed
}

#[cfg(test)]
mod tests;
