//! Transcript blocks (welcome, prompt cards, assistant replies, tool groups, notices, turn
//! summaries) and their rows at a width.

use crate::term::markdown::{MarkdownOptions, MarkdownStream};
use crate::term::style::{Span, Style, StyledLine, Tone};
use crate::term::width::{break_units, str_width, truncate_to_width};

use super::tools::{clean, tool_rows, ToolCall};

/// One transcript block.
#[derive(Debug, Clone)]
pub enum Block {
    /// Rows fixed at creation, re-wrapped from their source on resize.
    Text(TextBlock),
    Assistant(Box<MarkdownStream>),
    Tools(Vec<ToolCall>),
}

/// A block of plain paragraphs.
#[derive(Debug, Clone)]
pub struct TextBlock {
    pub kind: TextKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Welcome,
    Prompt,
    /// `● Topic: body` (topic may be empty).
    Notice,
    Warning,
    Summary,
    /// `● Topic` over aligned `label  value` rows: the text is the topic's line, then one
    /// `label: value` line per fact (`/status`).
    Facts,
}

impl Block {
    pub fn text(kind: TextKind, text: impl Into<String>) -> Self {
        Block::Text(TextBlock {
            kind,
            text: text.into(),
        })
    }

    pub fn assistant(width: usize) -> Self {
        Block::Assistant(Box::new(MarkdownStream::new(MarkdownOptions::new(
            width.max(4),
        ))))
    }

    /// All rows of the block at `width`, as they stand (an open reply includes its tail).
    pub fn rows(&self, width: usize) -> Vec<StyledLine> {
        match self {
            Block::Text(block) => text_rows(block, width),
            Block::Assistant(stream) => stream.lines(),
            Block::Tools(calls) => tool_rows(calls, width, false),
        }
    }
}

/// Word-wraps `text` into rows of at most `width` cells (long words are broken).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut used = 0usize;
        for (i, word) in line.split(' ').enumerate() {
            let w = str_width(word);
            let sep = usize::from(i > 0);
            if used + sep + w <= width {
                if sep == 1 {
                    row.push(' ');
                }
                row.push_str(word);
                used += sep + w;
                continue;
            }
            if !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            for unit in break_units(word) {
                let uw = str_width(unit);
                if used + uw > width && !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                    used = 0;
                }
                row.push_str(unit);
                used += uw;
            }
        }
        rows.push(row);
    }
    rows
}
fn text_rows(block: &TextBlock, width: usize) -> Vec<StyledLine> {
    let text = clean(&block.text);
    let width = width.max(4);
    match block.kind {
        TextKind::Welcome => {
            let mut line = StyledLine::new();
            line.push("𝒇x", Style::plain().bold());
            let rest = text.strip_prefix("𝒇x").unwrap_or(&text);
            let (kept, _) = truncate_to_width(rest, width.saturating_sub(2));
            line.push(kept, Style::plain().fg(Tone::Secondary));
            vec![line]
        }
        TextKind::Prompt => wrap(&text, width - 2)
            .into_iter()
            .map(|row| {
                let mut line = StyledLine::new();
                line.push("┃ ", Style::plain().bold());
                line.push(&row, Style::plain().bold());
                line
            })
            .collect(),
        TextKind::Notice | TextKind::Warning => {
            let glyph = if block.kind == TextKind::Warning {
                "⚠ "
            } else {
                "● "
            };
            let (topic, body) = match text.split_once(": ") {
                Some((topic, body)) if !topic.contains(' ') && !topic.is_empty() => {
                    (Some(topic), body)
                }
                _ => (None, text.as_str()),
            };
            let full = match topic {
                Some(topic) => format!("{topic}: {body}"),
                None => body.to_owned(),
            };
            let mut out = Vec::new();
            for (i, row) in wrap(&full, width - 2).into_iter().enumerate() {
                let mut line = StyledLine::new();
                if i == 0 {
                    line.push(glyph, Style::plain().bold());
                    match topic {
                        Some(topic) => {
                            let label = format!("{topic}:");
                            let rest = row.get(label.len()..).unwrap_or("");
                            line.push(&label, Style::plain().bold());
                            line.push(rest, Style::plain());
                        }
                        None => line.push(&row, Style::plain()),
                    }
                } else {
                    line.push("  ", Style::plain());
                    line.push(&row, Style::plain());
                }
                out.push(line);
            }
            out
        }
        TextKind::Summary => wrap(&text, width)
            .into_iter()
            .map(|row| StyledLine::from_span(Span::new(row, Style::plain().fg(Tone::Secondary))))
            .collect(),
        TextKind::Facts => facts_rows(&text, width),
    }
}

/// `● Topic`, then each `label: value` line as `  label   value`: labels (secondary) in one
/// column, values wrapped under themselves; when that leaves the values under 16 columns, each
/// value goes under its label instead. Labels are the app's own ASCII words.
fn facts_rows(text: &str, width: usize) -> Vec<StyledLine> {
    let mut lines = text.split('\n');
    let topic = lines.next().unwrap_or("");
    let facts: Vec<(&str, &str)> = lines
        .map(|line| line.split_once(": ").unwrap_or(("", line)))
        .collect();
    let label_w = facts
        .iter()
        .map(|(label, _)| label.len())
        .max()
        .unwrap_or(0);
    let indent = if width >= label_w + 21 {
        label_w + 5
    } else {
        4
    };
    let mut out = vec![StyledLine::from_span(Span::new(
        format!("● {topic}"),
        Style::plain().bold(),
    ))];
    for (label, value) in facts {
        let pad = indent - 2;
        let mut line = StyledLine::from_span(Span::new(
            format!("  {label:<pad$}"),
            Style::plain().fg(Tone::Secondary),
        ));
        if indent == 4 {
            out.push(line);
            line = StyledLine::from_span(Span::new("    ", Style::plain()));
        }
        for (i, row) in wrap(value, width.saturating_sub(indent).max(1))
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                out.push(line);
                line = StyledLine::from_span(Span::new(" ".repeat(indent), Style::plain()));
            }
            line.push(&row, Style::plain());
        }
        out.push(line);
    }
    out
}
