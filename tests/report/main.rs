//! What a run leaves for people and CI: `mcpeval report`, `diff` as a gate, the HTML report,
//! GitHub Actions output and the action's steps, and extensions.

#[path = "../support/mod.rs"]
mod support;

mod action;
mod cost;
mod diff_gate;
mod extensions;
// Downloads extension releases from a fake release server.
#[cfg(feature = "extension-releases")]
mod extensions_release;
mod github_actions;
mod html;
mod parameter_coverage;
mod report;
