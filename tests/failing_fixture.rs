//! The failing fixture eval (`tests/fixtures/failing`) as a test binary of its own, the way a
//! user's `tests/evals.rs` is one. It runs nothing during a plain `cargo test` (its tasks are
//! meant to fail); `tests/harness.rs` runs it with `MCPEVAL_RUN_FAILING_FIXTURE=1`, directly
//! and under `cargo nextest`.

fn main() -> std::process::ExitCode {
    if std::env::var_os("MCPEVAL_RUN_FAILING_FIXTURE").is_none() {
        return std::process::ExitCode::SUCCESS;
    }
    mcpeval::Harness::discover("tests/fixtures/failing")
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .run()
}
