//! The repository's own evals under `evals/`, run exactly as a user's would be. The one
//! addition to the usual one-liner: the evals run this crate's `mcpeval` binary as their
//! agent and server, found through `$MCPEVAL_BIN`.

fn main() -> std::process::ExitCode {
    mcpeval::Harness::discover("evals")
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .run()
}
