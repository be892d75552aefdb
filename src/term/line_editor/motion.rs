//! Cursor motion over the draft: cluster and placeholder stops, words, lines, and the
//! vertical moves that fall through to history recall.

use super::{Dir, EditOutcome, LineEditor};
use crate::term::history::PromptHistory;
use crate::term::width::{char_width, next_cluster_end, prev_cluster_start, str_width};

impl LineEditor {
    pub(super) fn move_to(&mut self, pos: usize) -> EditOutcome {
        let pos = self.snap_out_of_placeholder(pos.min(self.text.len()));
        self.last_edit = None;
        if pos == self.cursor {
            return EditOutcome::Ignored;
        }
        self.cursor = pos;
        EditOutcome::Moved
    }

    pub(super) fn placeholder_ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.pastes.iter().filter_map(|p| {
            let i = self.text.find(&p.placeholder)?;
            Some((i, i.saturating_add(p.placeholder.len())))
        })
    }

    pub(super) fn snap_out_of_placeholder(&self, pos: usize) -> usize {
        self.placeholder_ranges()
            .find(|&(a, b)| a < pos && pos < b)
            .map_or(pos, |(_, b)| b)
    }

    pub(super) fn next_stop(&self, pos: usize) -> usize {
        match self.placeholder_ranges().find(|&(a, _)| a == pos) {
            Some((_, b)) => b,
            None => next_cluster_end(&self.text, pos),
        }
    }

    pub(super) fn prev_stop(&self, pos: usize) -> usize {
        match self.placeholder_ranges().find(|&(_, b)| b == pos) {
            Some((a, _)) => a,
            None => prev_cluster_start(&self.text, pos),
        }
    }

    pub(super) fn line_start(&self, pos: usize) -> usize {
        self.text
            .get(..pos)
            .and_then(|h| h.rfind('\n'))
            .map_or(0, |i| i.saturating_add(1))
    }

    pub(super) fn line_end(&self, pos: usize) -> usize {
        self.text
            .get(pos..)
            .and_then(|t| t.find('\n'))
            .map_or(self.text.len(), |i| pos.saturating_add(i))
    }

    /// Start of the word before `pos`: whitespace-delimited, or runs of word characters and
    /// of punctuation when `whitespace_only` is false.
    pub(super) fn word_left(&self, pos: usize, whitespace_only: bool) -> usize {
        let head = self.text.get(..pos).unwrap_or("");
        let mut chars = head.char_indices().rev().peekable();
        let mut start = pos;
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_whitespace() {
                break;
            }
            start = i;
            chars.next();
        }
        let class = chars.peek().map(|&(_, c)| char_class(c, whitespace_only));
        while let Some(&(i, c)) = chars.peek() {
            if Some(char_class(c, whitespace_only)) != class {
                break;
            }
            start = i;
            chars.next();
        }
        self.snap_left(start)
    }

    pub(super) fn word_right(&self, pos: usize) -> usize {
        let tail = self.text.get(pos..).unwrap_or("");
        let mut chars = tail.char_indices().peekable();
        let mut end = 0usize;
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_whitespace() {
                break;
            }
            end = i.saturating_add(c.len_utf8());
            chars.next();
        }
        let class = chars.peek().map(|&(_, c)| char_class(c, false));
        while let Some(&(i, c)) = chars.peek() {
            if Some(char_class(c, false)) != class {
                break;
            }
            end = i.saturating_add(c.len_utf8());
            chars.next();
        }
        self.snap_out_of_placeholder(pos.saturating_add(end))
    }

    pub(super) fn snap_left(&self, pos: usize) -> usize {
        self.placeholder_ranges()
            .find(|&(a, b)| a < pos && pos < b)
            .map_or(pos, |(a, _)| a)
    }

    pub(super) fn vertical(&mut self, dir: Dir, history: &PromptHistory) -> EditOutcome {
        let start = self.line_start(self.cursor);
        let col = *self
            .goal_col
            .get_or_insert_with(|| str_width(self.text.get(start..self.cursor).unwrap_or("")));
        let target_line = match dir {
            Dir::Left if start > 0 => Some(self.line_start(start.saturating_sub(1))),
            Dir::Right => {
                let end = self.line_end(self.cursor);
                (end < self.text.len()).then(|| end.saturating_add(1))
            }
            Dir::Left => None,
        };
        let Some(line) = target_line else {
            self.goal_col = None;
            return match dir {
                Dir::Left if self.cursor > 0 && self.browse.is_none() => self.move_to(0),
                Dir::Left => self.history_prev(history),
                Dir::Right if self.cursor < self.text.len() && self.browse.is_none() => {
                    self.move_to(self.text.len())
                }
                Dir::Right => self.history_next(history),
            };
        };
        let end = self.line_end(line);
        let mut pos = line;
        let mut used = 0usize;
        while pos < end {
            let next = self.next_stop(pos);
            let w = str_width(self.text.get(pos..next).unwrap_or(""));
            if used.saturating_add(w) > col || next == pos {
                break;
            }
            used = used.saturating_add(w);
            pos = next;
        }
        let goal = self.goal_col;
        let out = self.move_to(pos);
        self.goal_col = goal;
        out
    }
}

fn char_class(c: char, whitespace_only: bool) -> u8 {
    if c.is_whitespace() {
        0
    } else if whitespace_only || c.is_alphanumeric() || c == '_' || char_width(c) == 0 {
        1
    } else {
        2
    }
}
