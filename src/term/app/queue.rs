//! Prompts typed while the app is busy (a turn runs, a session switch or a config change is
//! under way): sent in order once it is free, held after a cancel until Enter.

use std::collections::VecDeque;

use crate::term::style::{Style, StyledLine, Tone};
use crate::term::width::elide;

/// The queued prompts, oldest first.
#[derive(Debug, Clone, Default)]
pub struct PromptQueue {
    prompts: VecDeque<String>,
    /// A cancel held the queue: nothing is sent until Enter.
    held: bool,
}

impl PromptQueue {
    pub fn push(&mut self, text: String) {
        self.prompts.push_back(text);
    }

    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// Holds the queue after a cancel (when it has prompts).
    pub fn hold(&mut self) {
        if !self.prompts.is_empty() {
            self.held = true;
        }
    }

    pub fn is_held(&self) -> bool {
        self.held
    }

    /// Lets the queue go on.
    pub fn release(&mut self) {
        self.held = false;
    }

    /// Held with prompts waiting.
    pub fn is_waiting(&self) -> bool {
        self.held && !self.prompts.is_empty()
    }

    /// The next prompt to send.
    pub fn next_prompt(&mut self) -> Option<String> {
        self.prompts.pop_front()
    }

    /// The newest prompt, taken back for editing (the hold ends with the last one).
    pub fn recall(&mut self) -> Option<String> {
        let text = self.prompts.pop_back()?;
        if self.prompts.is_empty() {
            self.held = false;
        }
        Some(text)
    }

    /// Drops the prompts (a hold stays).
    pub fn clear(&mut self) {
        self.prompts.clear();
    }

    /// Drops the prompts and the hold.
    pub fn reset(&mut self) {
        self.prompts.clear();
        self.held = false;
    }

    /// `N queued messages · …`, when there are any.
    pub fn row(&self, width: usize) -> Option<StyledLine> {
        let n = self.prompts.len();
        if n == 0 {
            return None;
        }
        let text = format!(
            "{n} queued message{}{}",
            if n == 1 { "" } else { "s" },
            if self.held {
                " · paused · enter to send · ↑ to edit"
            } else {
                " · ↑ to edit"
            }
        );
        Some(StyledLine::of(
            &elide(&text, width),
            Style::plain().fg(Tone::Secondary),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_needs_prompts_and_ends_with_the_last_one_recalled() {
        let mut queue = PromptQueue::default();
        queue.hold();
        assert!(!queue.is_held(), "nothing to hold");
        queue.push("one".into());
        queue.push("two".into());
        queue.hold();
        assert!(queue.is_waiting());
        assert_eq!(queue.recall().as_deref(), Some("two"));
        assert!(queue.is_held());
        assert_eq!(queue.recall().as_deref(), Some("one"));
        assert!(!queue.is_held());
        assert_eq!(queue.recall(), None);
    }

    #[test]
    fn clear_keeps_the_hold_and_reset_drops_it() {
        let mut queue = PromptQueue::default();
        queue.push("one".into());
        queue.hold();
        queue.clear();
        assert!(queue.is_held() && !queue.is_waiting());
        queue.reset();
        assert!(!queue.is_held());
        queue.push("a".into());
        queue.push("b".into());
        assert_eq!(queue.next_prompt().as_deref(), Some("a"));
        assert_eq!(queue.len(), 1);
    }
}
