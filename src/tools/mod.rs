//! tools: not yet built.
