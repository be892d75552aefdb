//! term: the pure building blocks of the interactive terminal, tested natively.
//!
//! - [`keys`]: bytes from the terminal → key presses, pastes, focus and colour reports.
//! - [`width`]: display width in terminal cells; the clusters the cursor moves over.
//! - [`sanitize`]: neutralises control sequences in model and command text.
pub mod keys;
pub mod sanitize;
pub mod width;
