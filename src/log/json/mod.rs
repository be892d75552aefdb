//! JSON for the log: a strict tree parser, typed readers with paths, and the canonical writer.

pub(crate) mod read;
pub(crate) mod tree;
pub(crate) mod write;
