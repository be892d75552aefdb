//! The keymap: key presses become actions through tables, one per layer of the screen, and
//! the app then applies them (as reedline's `EditMode::parse_event` turns events into
//! `ReedlineEvent`s that the editor applies).
//!
//! A key goes to the first layer that is up: an open screen ([`screen`]), else the approval
//! panel ([`approval`]), else the sign-in panel ([`login`], whose unbound keys fall through),
//! else the composer ([`composer`]). A composer binding is a list of actions tried in order
//! until one applies (reedline's `UntilFound`): Up moves in the slash menu when it shows, else
//! recalls a queued prompt, else goes to the line editor.

use crate::term::keys::{KeyCode, KeyEvent, Modifiers};

use super::approval::{ApprovalKey, Choice};
use super::overlay::view::ScreenKey;
use super::signin::LoginKey;
use ComposerKey::{
    Edit, Escape, ExitOnEmpty, Interrupt, MenuComplete, MenuDown, MenuRun, MenuUp, RecallQueued,
    Review, ToggleMode,
};

/// What a key does in the composer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComposerKey {
    /// Ctrl+C: cancel the turn, else clear the draft; twice within the window exits.
    Interrupt,
    /// Esc: cancel the turn, close the slash menu, or (twice) clear the draft.
    Escape,
    /// Ctrl+D on an empty draft: exit (when no turn runs).
    ExitOnEmpty,
    /// Ctrl+O: the transcript review.
    Review,
    /// Shift+Tab: ask ⇄ auto.
    ToggleMode,
    MenuUp,
    MenuDown,
    /// Tab in the slash menu: the highlighted command into the draft.
    MenuComplete,
    /// Enter in the slash menu: run the chosen command.
    MenuRun,
    /// Up on an empty draft: the newest queued prompt back for editing.
    RecallQueued,
    /// The line editor's key (Enter submits).
    Edit,
}

/// Which modifiers a binding accepts.
#[derive(Debug, Clone, Copy)]
enum Mods {
    Exactly(Modifiers),
    /// Any set made of these only (`Only(SHIFT)`: none, or Shift).
    Only(Modifiers),
    /// Any set that holds these.
    With(Modifiers),
    /// Any set that holds none of these.
    Without(Modifiers),
    Any,
}

impl Mods {
    fn accept(self, mods: Modifiers) -> bool {
        match self {
            Mods::Exactly(m) => mods == m,
            Mods::Only(m) => mods.without(m).is_empty(),
            Mods::With(m) => mods.contains(m),
            Mods::Without(m) => mods.without(m) == mods,
            Mods::Any => true,
        }
    }
}

const NONE: Mods = Mods::Exactly(Modifiers::NONE);
const CTRL: Mods = Mods::Exactly(Modifiers::CTRL);
const SHIFT: Mods = Mods::Exactly(Modifiers::SHIFT);
const PLAIN_OR_SHIFT: Mods = Mods::Only(Modifiers::SHIFT);
const NO_CTRL: Mods = Mods::Without(Modifiers::CTRL);

/// A key (with the modifiers it accepts) and what it is bound to.
type Binding<A> = (KeyCode, Mods, A);

fn lookup<A: Copy>(table: &[Binding<A>], key: KeyEvent) -> Option<A> {
    table
        .iter()
        .find(|(code, mods, _)| *code == key.code && mods.accept(key.mods))
        .map(|&(_, _, action)| action)
}

/// A character typed into a text field (no modifier but Shift).
fn typed(key: KeyEvent) -> Option<char> {
    match key.code {
        KeyCode::Char(c) if PLAIN_OR_SHIFT.accept(key.mods) => Some(c),
        _ => None,
    }
}

const SCREEN: &[Binding<ScreenKey>] = &[
    (KeyCode::Escape, Mods::Any, ScreenKey::Close),
    (KeyCode::Char('c'), CTRL, ScreenKey::Close),
    (KeyCode::Char('o'), CTRL, ScreenKey::Review),
    (KeyCode::Up, Mods::Any, ScreenKey::Up),
    (KeyCode::Down, Mods::Any, ScreenKey::Down),
    (KeyCode::PageUp, Mods::Any, ScreenKey::PageUp),
    (KeyCode::PageDown, Mods::Any, ScreenKey::PageDown),
    (KeyCode::Backspace, Mods::Any, ScreenKey::Erase),
    (KeyCode::Enter, Mods::Any, ScreenKey::Accept),
    (KeyCode::Char('q'), Mods::Any, ScreenKey::Quit),
];

/// Keys on an open screen: typing goes to its search field (a plain `q` too).
pub fn screen(key: KeyEvent) -> Option<ScreenKey> {
    typed(key)
        .map(ScreenKey::Type)
        .or_else(|| lookup(SCREEN, key))
}

const CHOOSING: &[Binding<ApprovalKey>] = &[
    (
        KeyCode::Char('c'),
        Mods::With(Modifiers::CTRL),
        ApprovalKey::Decide(Choice::No),
    ),
    (
        KeyCode::Char('1'),
        NO_CTRL,
        ApprovalKey::Decide(Choice::Yes),
    ),
    (
        KeyCode::Char('2'),
        NO_CTRL,
        ApprovalKey::Decide(Choice::Always),
    ),
    (KeyCode::Char('3'), NO_CTRL, ApprovalKey::Decide(Choice::No)),
    (KeyCode::Up, NO_CTRL, ApprovalKey::Previous),
    (KeyCode::Left, NO_CTRL, ApprovalKey::Previous),
    (KeyCode::Down, NO_CTRL, ApprovalKey::Next),
    (KeyCode::Right, NO_CTRL, ApprovalKey::Next),
    (KeyCode::Tab, NO_CTRL, ApprovalKey::Amend),
    (KeyCode::Enter, NO_CTRL, ApprovalKey::Confirm),
    (KeyCode::Escape, NO_CTRL, ApprovalKey::Decide(Choice::No)),
];

const AMENDING: &[Binding<ApprovalKey>] = &[
    (
        KeyCode::Char('c'),
        Mods::With(Modifiers::CTRL),
        ApprovalKey::Decide(Choice::No),
    ),
    (KeyCode::Enter, NONE, ApprovalKey::Confirm),
    (KeyCode::Escape, Mods::Any, ApprovalKey::Back),
    (KeyCode::Tab, Mods::Any, ApprovalKey::Back),
    (KeyCode::Backspace, Mods::Any, ApprovalKey::Erase),
];

/// Keys in the approval panel: `1`–`3` decide at once, arrows move, Tab opens a note on Yes
/// or No, Enter confirms, Esc and Ctrl+C deny; while a note is typed, text goes into it, Enter
/// confirms with it, Esc or Tab go back (dropping it), Ctrl+C denies.
pub fn approval(key: KeyEvent, amending: bool) -> Option<ApprovalKey> {
    if amending {
        typed(key)
            .map(ApprovalKey::Type)
            .or_else(|| lookup(AMENDING, key))
    } else {
        lookup(CHOOSING, key)
    }
}

const LOGIN: &[Binding<LoginKey>] = &[
    (KeyCode::Escape, NONE, LoginKey::Cancel),
    (KeyCode::Char('c'), CTRL, LoginKey::Cancel),
    (KeyCode::Up, Mods::Any, LoginKey::Up),
    (KeyCode::Down, Mods::Any, LoginKey::Down),
    (KeyCode::Enter, NONE, LoginKey::Enter { plain: true }),
    (KeyCode::Enter, Mods::Any, LoginKey::Enter { plain: false }),
];

/// Keys while a login runs: Esc and Ctrl+C cancel it; in the team picker ↑/↓ move and Enter
/// confirms; Enter on an empty draft reopens the sign-in page.
pub fn login(key: KeyEvent) -> Option<LoginKey> {
    lookup(LOGIN, key)
}

const COMPOSER: &[Binding<&[ComposerKey]>] = &[
    (KeyCode::Char('c'), CTRL, &[Interrupt]),
    (KeyCode::Escape, NONE, &[Escape]),
    (KeyCode::Char('d'), CTRL, &[ExitOnEmpty, Edit]),
    (KeyCode::Char('o'), CTRL, &[Review]),
    (KeyCode::Up, NONE, &[MenuUp, RecallQueued, Edit]),
    (KeyCode::Up, PLAIN_OR_SHIFT, &[MenuUp, Edit]),
    (KeyCode::Down, PLAIN_OR_SHIFT, &[MenuDown, Edit]),
    (KeyCode::Tab, NONE, &[MenuComplete, Edit]),
    (KeyCode::Tab, SHIFT, &[MenuComplete, ToggleMode]),
    (KeyCode::Enter, PLAIN_OR_SHIFT, &[MenuRun, Edit]),
];

/// Keys in the composer: the actions to try in order; every other key edits the draft.
pub fn composer(key: KeyEvent) -> &'static [ComposerKey] {
    lookup(COMPOSER, key).unwrap_or(&[Edit])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALT: Modifiers = Modifiers::ALT;
    const CTRL_KEY: Modifiers = Modifiers::CTRL;
    const SHIFT_KEY: Modifiers = Modifiers::SHIFT;

    fn key(code: KeyCode, mods: Modifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn plain(code: KeyCode) -> KeyEvent {
        KeyEvent::plain(code)
    }

    #[test]
    fn screen_keys() {
        let cases = [
            (plain(KeyCode::Escape), Some(ScreenKey::Close)),
            (key(KeyCode::Escape, ALT), Some(ScreenKey::Close)),
            (KeyEvent::ctrl('c'), Some(ScreenKey::Close)),
            (KeyEvent::ctrl('o'), Some(ScreenKey::Review)),
            (plain(KeyCode::Up), Some(ScreenKey::Up)),
            (key(KeyCode::Down, SHIFT_KEY), Some(ScreenKey::Down)),
            (plain(KeyCode::PageUp), Some(ScreenKey::PageUp)),
            (plain(KeyCode::PageDown), Some(ScreenKey::PageDown)),
            (key(KeyCode::Backspace, CTRL_KEY), Some(ScreenKey::Erase)),
            (key(KeyCode::Enter, SHIFT_KEY), Some(ScreenKey::Accept)),
            // A plain (or shifted) character is typed, `q` too; `q` with a modifier quits.
            (plain(KeyCode::Char('q')), Some(ScreenKey::Type('q'))),
            (
                key(KeyCode::Char('M'), SHIFT_KEY),
                Some(ScreenKey::Type('M')),
            ),
            (KeyEvent::alt('q'), Some(ScreenKey::Quit)),
            (KeyEvent::ctrl('q'), Some(ScreenKey::Quit)),
            (KeyEvent::ctrl('x'), None),
            (plain(KeyCode::Tab), None),
        ];
        for (key, want) in cases {
            assert_eq!(screen(key), want, "{key:?}");
        }
    }

    #[test]
    fn approval_keys_while_choosing() {
        let cases = [
            (
                plain(KeyCode::Char('1')),
                Some(ApprovalKey::Decide(Choice::Yes)),
            ),
            (
                plain(KeyCode::Char('2')),
                Some(ApprovalKey::Decide(Choice::Always)),
            ),
            (
                plain(KeyCode::Char('3')),
                Some(ApprovalKey::Decide(Choice::No)),
            ),
            (KeyEvent::alt('1'), Some(ApprovalKey::Decide(Choice::Yes))),
            (
                plain(KeyCode::Escape),
                Some(ApprovalKey::Decide(Choice::No)),
            ),
            (KeyEvent::ctrl('c'), Some(ApprovalKey::Decide(Choice::No))),
            (
                key(KeyCode::Char('c'), CTRL_KEY | SHIFT_KEY),
                Some(ApprovalKey::Decide(Choice::No)),
            ),
            // With Ctrl held, nothing but Ctrl+C counts.
            (key(KeyCode::Char('1'), CTRL_KEY), None),
            (key(KeyCode::Enter, CTRL_KEY), None),
            (plain(KeyCode::Up), Some(ApprovalKey::Previous)),
            (plain(KeyCode::Left), Some(ApprovalKey::Previous)),
            (plain(KeyCode::Down), Some(ApprovalKey::Next)),
            (plain(KeyCode::Right), Some(ApprovalKey::Next)),
            (plain(KeyCode::Tab), Some(ApprovalKey::Amend)),
            (key(KeyCode::Tab, SHIFT_KEY), Some(ApprovalKey::Amend)),
            (plain(KeyCode::Enter), Some(ApprovalKey::Confirm)),
            (plain(KeyCode::Char('y')), None),
        ];
        for (key, want) in cases {
            assert_eq!(approval(key, false), want, "{key:?}");
        }
    }

    #[test]
    fn approval_keys_while_a_note_is_typed() {
        let cases = [
            (plain(KeyCode::Char('1')), Some(ApprovalKey::Type('1'))),
            (
                key(KeyCode::Char('N'), SHIFT_KEY),
                Some(ApprovalKey::Type('N')),
            ),
            (KeyEvent::ctrl('c'), Some(ApprovalKey::Decide(Choice::No))),
            (plain(KeyCode::Enter), Some(ApprovalKey::Confirm)),
            // Shift+Enter does not confirm a note.
            (key(KeyCode::Enter, SHIFT_KEY), None),
            (plain(KeyCode::Escape), Some(ApprovalKey::Back)),
            (plain(KeyCode::Tab), Some(ApprovalKey::Back)),
            (plain(KeyCode::Backspace), Some(ApprovalKey::Erase)),
            (KeyEvent::alt('x'), None),
        ];
        for (key, want) in cases {
            assert_eq!(approval(key, true), want, "{key:?}");
        }
    }

    #[test]
    fn login_keys() {
        let cases = [
            (plain(KeyCode::Escape), Some(LoginKey::Cancel)),
            (key(KeyCode::Escape, ALT), None),
            (KeyEvent::ctrl('c'), Some(LoginKey::Cancel)),
            (plain(KeyCode::Up), Some(LoginKey::Up)),
            (key(KeyCode::Down, SHIFT_KEY), Some(LoginKey::Down)),
            (plain(KeyCode::Enter), Some(LoginKey::Enter { plain: true })),
            (
                key(KeyCode::Enter, SHIFT_KEY),
                Some(LoginKey::Enter { plain: false }),
            ),
            (plain(KeyCode::Char('a')), None),
        ];
        for (key, want) in cases {
            assert_eq!(login(key), want, "{key:?}");
        }
    }

    #[test]
    fn composer_keys() {
        let cases: [(KeyEvent, &[ComposerKey]); 13] = [
            (KeyEvent::ctrl('c'), &[Interrupt]),
            (plain(KeyCode::Escape), &[Escape]),
            (key(KeyCode::Escape, SHIFT_KEY), &[Edit]),
            (KeyEvent::ctrl('d'), &[ExitOnEmpty, Edit]),
            (KeyEvent::ctrl('o'), &[Review]),
            (plain(KeyCode::Up), &[MenuUp, RecallQueued, Edit]),
            (key(KeyCode::Up, SHIFT_KEY), &[MenuUp, Edit]),
            (key(KeyCode::Up, ALT), &[Edit]),
            (plain(KeyCode::Down), &[MenuDown, Edit]),
            (plain(KeyCode::Tab), &[MenuComplete, Edit]),
            (key(KeyCode::Tab, SHIFT_KEY), &[MenuComplete, ToggleMode]),
            (key(KeyCode::Enter, SHIFT_KEY), &[MenuRun, Edit]),
            (plain(KeyCode::Char('x')), &[Edit]),
        ];
        for (key, want) in cases {
            assert_eq!(composer(key), want, "{key:?}");
        }
    }
}
