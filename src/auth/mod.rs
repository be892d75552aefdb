//! auth: not yet built.
