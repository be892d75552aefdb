//! term: the pure building blocks of the interactive terminal, tested natively.
//!
//! - [`keys`]: bytes from the terminal → key presses, pastes, focus and colour reports.
//! - [`line_editor`]: the composer's draft: editing, kill ring, undo, pastes, history recall.
//! - [`history`]: the in-memory prompt history.
//! - [`width`]: display width in terminal cells; the clusters the cursor moves over.
//! - [`sanitize`]: neutralises control sequences in model and command text: the one gate.
//! - [`ansi`]: the bytes the terminal is sent, as types only the gate and our own sequences fill.
//! - [`markdown`]: streaming markdown → styled rows ([`style`]) → ANSI.
//! - [`app`]: the interactive app built from these: a synchronous state machine (screen, input,
//!   commands).
//! - [`driver`]: the async driver that runs the app with an agent over a host.
pub mod ansi;
pub mod app;
pub mod driver;
pub mod history;
pub mod keys;
pub mod line_editor;
pub mod markdown;
pub mod sanitize;
pub mod style;
pub mod width;
