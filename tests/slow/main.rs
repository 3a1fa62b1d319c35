//! The slow set: real agent programs (Claude Code, Codex, Gemini CLI, ACP) and Cargo builds of
//! fixture workspaces. Minutes where the other binaries take seconds: `cargo test-fast` skips
//! this binary, CI runs it, and nextest runs its Cargo builds one at a time
//! (`.config/nextest.toml`).

#[path = "../support/mod.rs"]
mod support;

mod acp;
mod claude_code;
mod cli_agents;
mod compat;
mod init_ci;
mod init_dependency;
mod protocol_versions;
mod replay;
mod rust_workspace;

/// `<our target>/rust-workspace`: the one target dir of the fixture workspaces (rust_workspace,
/// init_ci, init_dependency), kept between runs, so mcpeval is compiled there once.
fn fixture_target() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target tmp dir is in the target dir")
        .join("rust-workspace")
}

/// The fixture workspaces' crates' binaries land on the same paths of [`fixture_target`]: one
/// of them at a time.
fn cargo_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
