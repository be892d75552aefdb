//! The session on screen: its id, title, model, permission mode and reasoning effort, and the
//! changes under way (a session switch, a config change, a mode switch held until a turn ends).

use crate::agent::modes::Mode;
use crate::gateway::Effort;

/// The session on screen and the changes under way. Prompts wait while one is
/// ([`SessionInfo::is_settling`]).
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    pub id: String,
    pub title: Option<String>,
    pub model: String,
    pub mode: Mode,
    pub effort: Effort,
    /// A mode switch asked for during a turn, applied when it ends.
    pub pending_mode: Option<Mode>,
    /// A config change is being applied: queued prompts wait for it.
    pub applying_config: bool,
    /// A session switch (`/new`, `/resume`) is under way: prompts wait for it.
    pub switching: bool,
}

impl SessionInfo {
    /// The mode in effect: `code` (commands run without asking) under a host that runs every
    /// command without asking, else the session's mode.
    pub fn permission(&self, sandboxed: bool) -> Mode {
        if sandboxed {
            Mode::Code
        } else {
            self.mode
        }
    }

    /// Whether a session switch or a config change is under way.
    pub fn is_settling(&self) -> bool {
        self.switching || self.applying_config
    }

    /// The window title: `fx · <title, or workspace> · <model>`.
    pub fn window_title(&self) -> String {
        let label = self.title.as_deref().unwrap_or("workspace");
        format!("fx · {label} · {}", self.model)
    }

    /// `Session: resumed <id>`, with the title when there is one.
    pub fn resumed_notice(&self) -> String {
        match &self.title {
            Some(title) => format!("Session: resumed {} · {title}", self.id),
            None => format!("Session: resumed {}", self.id),
        }
    }
}

/// A session title from a first prompt: its first 8 words.
pub fn title_of(text: &str) -> String {
    let clean = crate::term::sanitize::sanitize(text);
    clean
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efforts_and_the_permission_in_effect() {
        assert_eq!(Effort::parse("auto"), Some(Effort::Auto));
        assert_eq!(Effort::parse("high"), Some(Effort::Named("high".into())));
        assert_eq!(Effort::parse("high").unwrap().as_str(), "high");
        let mut session = SessionInfo::default();
        assert_eq!(session.permission(false), Mode::Ask);
        assert_eq!(session.permission(true), Mode::Code);
        session.mode = Mode::Code;
        assert_eq!(session.permission(false), Mode::Code);
    }

    #[test]
    fn titles() {
        let mut session = SessionInfo {
            id: "s1".into(),
            model: "a/b".into(),
            ..SessionInfo::default()
        };
        assert_eq!(session.window_title(), "fx · workspace · a/b");
        assert_eq!(session.resumed_notice(), "Session: resumed s1");
        session.title = Some(title_of("one two three four five six seven eight nine"));
        assert_eq!(
            session.window_title(),
            "fx · one two three four five six seven eight · a/b"
        );
        assert_eq!(title_of("a\u{1b}[31mb  c"), "ab c");
    }
}
