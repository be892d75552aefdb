//! In-memory prompt history: the list Up/Down and Ctrl+P/N walk through. A host-backed store
//! (`promptHistoryStore`) loads into it at start and receives each accepted submission.

/// Prompt history, oldest entry first. Bounded: the oldest entries fall off past the limit.
/// Invariant: no two adjacent entries are equal and none is empty.
#[derive(Debug, Clone)]
pub struct PromptHistory {
    entries: Vec<String>,
    limit: usize,
}

/// What [`PromptHistory::push`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryPush {
    /// The entry was appended.
    Added,
    /// The entry equals the newest one and was not added again.
    Duplicate,
    /// The entry was empty or only whitespace.
    Empty,
}

impl Default for PromptHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl PromptHistory {
    /// Entries kept by default (what the reference loads from its store).
    pub const DEFAULT_LIMIT: usize = 100;

    /// An empty history with the default limit.
    #[must_use]
    pub fn new() -> Self {
        Self::with_limit(Self::DEFAULT_LIMIT)
    }

    /// An empty history keeping at most `limit` entries (at least 1).
    #[must_use]
    pub fn with_limit(limit: usize) -> Self {
        Self {
            entries: Vec::new(),
            limit: limit.max(1),
        }
    }

    /// A history loaded from a store, oldest first; adjacent duplicates and blanks are dropped.
    #[must_use]
    pub fn from_entries<I: IntoIterator<Item = String>>(entries: I) -> Self {
        let mut h = Self::new();
        for e in entries {
            h.push(&e);
        }
        h
    }

    /// Appends `entry` unless it is blank or equal to the newest entry.
    pub fn push(&mut self, entry: &str) -> HistoryPush {
        if entry.trim().is_empty() {
            return HistoryPush::Empty;
        }
        if self.entries.last().is_some_and(|last| last == entry) {
            return HistoryPush::Duplicate;
        }
        self.entries.push(entry.to_owned());
        if self.entries.len() > self.limit {
            let excess = self.entries.len() - self.limit;
            self.entries.drain(..excess);
        }
        HistoryPush::Added
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `index` counted from the oldest (0).
    #[must_use]
    pub fn get(&self, index: usize) -> Option<&str> {
        self.entries.get(index).map(String::as_str)
    }

    /// All entries, oldest first.
    #[must_use]
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_dedupes_adjacent_and_bounds() {
        let mut h = PromptHistory::with_limit(3);
        let table = [
            ("a", HistoryPush::Added),
            ("a", HistoryPush::Duplicate),
            ("  ", HistoryPush::Empty),
            ("b", HistoryPush::Added),
            ("a", HistoryPush::Added),
            ("c", HistoryPush::Added),
        ];
        for (e, want) in table {
            assert_eq!(h.push(e), want, "{e:?}");
        }
        assert_eq!(h.entries(), ["b", "a", "c"]);
        let loaded = PromptHistory::from_entries(["x", "x", "", "y"].map(String::from));
        assert_eq!(loaded.entries(), ["x", "y"]);
    }
}
