//! Loading and planning: every file format, its errors at their key paths, the plan's test
//! names, and the README and book examples against the loaders.

#[path = "../support/mod.rs"]
mod support;

mod config_errors;
mod docs;
mod load;
mod plan;
mod repository;
