//! Where a stream starts (again) for a consumer at cursor `c` (fxbot DESIGN §8.3): the
//! committed turns from the log's [`Replay`], and the turn this process runs (or ran last) from
//! its live [`Journal`].
//!
//! - Turns before the journal's come from the replay, with its rule for a cursor inside a
//!   committed turn (restart the turn from its `turn_start`, or go on after it).
//! - The journal's turn comes from the journal: a cursor inside it continues exactly.
//! - A journal older than the log's last turn (another tab ran a turn since) or of another
//!   session is not used: the replay is the whole truth then.

use super::cursor::Cursor;
use super::journal::{Journal, TooFarBehind};
use super::replay::Replay;
use super::stream::StreamLine;

/// What a consumer at a cursor is owed, in order: `replayed`, then `live`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resumed<'a> {
    pub replayed: &'a [StreamLine],
    pub live: &'a [StreamLine],
}

impl Resumed<'_> {
    /// Both parts, in order.
    pub fn lines(&self) -> impl Iterator<Item = &StreamLine> {
        self.replayed.iter().chain(self.live)
    }

    pub fn is_empty(&self) -> bool {
        self.replayed.is_empty() && self.live.is_empty()
    }
}

/// True when `journal` describes the newest turn of `replay`'s session.
pub fn journal_applies(replay: &Replay, journal: &Journal) -> bool {
    journal.session_id() == replay.session_id && journal.turn() >= replay.last_turn()
}

/// True when `replay` and `journal` (if any) leave no turn out: the journal is of the replay's
/// session and follows its last history entry at once. A replay kept from before another
/// process ran a turn fails this once this process starts the next one, and is read again.
pub fn is_gapless(replay: &Replay, journal: Option<&Journal>) -> bool {
    journal.is_none_or(|j| {
        j.session_id() == replay.session_id && j.turn() <= replay.history.saturating_add(1)
    })
}

/// The lines owed to a consumer at `cursor`.
///
/// # Errors
/// [`TooFarBehind`] when the journal owes more than 10,000 lines at once.
pub fn resume<'a>(
    replay: &'a Replay,
    journal: Option<&'a Journal>,
    cursor: Cursor,
) -> Result<Resumed<'a>, TooFarBehind> {
    let Some(journal) = journal.filter(|j| journal_applies(replay, j)) else {
        return Ok(Resumed {
            replayed: replay.after(cursor),
            live: &[],
        });
    };
    let live_turn = journal.turn();
    if cursor.turn() > live_turn {
        return Ok(Resumed {
            replayed: &[],
            live: &[],
        });
    }
    if cursor.turn() == live_turn {
        return Ok(Resumed {
            replayed: &[],
            live: journal.after(cursor)?,
        });
    }
    let after = replay.after(cursor);
    let before_live = after.partition_point(|l| l.cursor().turn() < live_turn);
    Ok(Resumed {
        replayed: after.get(..before_live).unwrap_or_default(),
        live: journal.after(Cursor::START)?,
    })
}
