//! agent: not yet built.
