//! A fixture eval directory as a test binary of its own, the way a user's `tests/evals.rs`
//! is one. It runs nothing during a plain `cargo test` (fixture tasks are meant to fail, or
//! to be timed); `tests/run/harness/` runs it with `MCPEVAL_FIXTURE=<dir>`, directly and under
//! `cargo nextest`.

fn main() -> std::process::ExitCode {
    let Some(dir) = std::env::var_os("MCPEVAL_FIXTURE") else {
        return std::process::ExitCode::SUCCESS;
    };
    mcpeval::Harness::discover(dir)
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .run()
}
