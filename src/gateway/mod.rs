//! gateway: not yet built.
