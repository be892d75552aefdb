//! term: not yet built.
