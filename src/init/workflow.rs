//! `mcpeval init --ci github`: `.github/workflows/evals.yml`, the evals in GitHub Actions.
//! Every push and pull request replays the committed cassettes (the `evals` job); the `gate`
//! job merges the run, compares it with the base branch's last report and keeps one
//! comment on the pull request (the action's steps, `mcpeval action …`); "Run workflow" with
//! `record` re-records with the agent's key and commits. The `mcpeval` binary the gate needs
//! (and the runs of a `--command`/`--url` server outside a crate, `mcpeval check`, or of a
//! server that is `mcpeval` itself) is installed from the source the crate's dependency
//! names (`Dependency::install_script`).

use std::fmt::Write as _;
use std::path::Path;

use super::dependency::Dependency;
use super::yaml::quoted;
use super::{AgentChoice, ServerEntry};

/// `--ci`: which CI the workflow is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CiKind {
    /// GitHub Actions: `.github/workflows/evals.yml`.
    Github,
}

/// Where the workflow is written, relative to DIR.
pub const WORKFLOW: &str = ".github/workflows/evals.yml";

/// What the workflow is made from.
pub struct WorkflowInput<'a> {
    /// `evals/<name>/eval.yaml`, relative to DIR.
    pub eval_file: &'a Path,
    /// Whether the evals run as `cargo test --test evals` (a Rust crate).
    pub crate_harness: bool,
    /// The agent.
    pub agent: &'a AgentChoice,
    /// How the server is started.
    pub server: &'a ServerEntry,
    /// The dependency the crate has (or would have): where `mcpeval` is installed from.
    pub dependency: &'a Dependency,
    /// DIR, absolute: a path dependency's install line is relative to it.
    pub root: &'a Path,
}

/// The workflow's text, and a warning when it cannot install mcpeval on GitHub's runners.
pub fn workflow(input: &WorkflowInput<'_>) -> (String, Option<String>) {
    let (install, warning) = input.dependency.install_script(input.root);
    let (key, program) = agent_needs(input.agent);
    let run = if input.crate_harness {
        "cargo test --test evals".to_owned()
    } else {
        format!("mcpeval check {}", input.eval_file.display())
    };
    let key_text = key.map_or_else(
        || "the agent's own key".to_owned(),
        |key| format!("the {key} secret"),
    );
    let mut out = String::new();
    let _ = write!(
        out,
        "# Written by `mcpeval init --ci github`: the evals in GitHub Actions.\n\
         # - Every push and pull request replays the committed cassettes: `{run}`\n\
         #   with CI=true, so no API key and nothing recorded. Any failing task turns the\n\
         #   `evals` job red.\n\
         # - The `gate` job merges the run into a report (the artifact `mcpeval-report`, the\n\
         #   baseline of later pull requests), and on a pull request compares it with the base\n\
         #   branch's last report, keeps one comment up to date, and fails on a regression (or\n\
         #   an exceeded budget: add `--max-definition-growth 10` and the like to\n\
         #   INPUT_DIFF_FLAGS). To gate on regressions only, add `continue-on-error: true` to\n\
         #   the step \"Replay the evals\".\n\
         # - \"Run workflow\" with `record` re-records the cassettes and accepts the new\n\
         #   snapshots with {key_text}, and commits them: review that commit.\n\
         name: evals\n\
         \n\
         on:\n  push:\n  pull_request:\n  workflow_dispatch:\n    inputs:\n      record:\n        \
         description: Re-record the cassettes and snapshots against the live API and commit them\n        \
         type: boolean\n        default: false\n\
         \n\
         permissions:\n  contents: read\n\
         \n\
         jobs:\n  evals:\n    if: ${{{{ !inputs.record }}}}\n    runs-on: ubuntu-latest\n    \
         timeout-minutes: 60\n    steps:\n"
    );
    evals_job(&mut out, input, program.as_deref(), &install, &run);
    gate_job(&mut out, &install);
    record_job(&mut out, input, program.as_deref(), &install, &run, key);
    (out, warning)
}

/// The `evals` job's steps (its header is the workflow's end): set up, replay the evals, keep
/// the results for the gate.
fn evals_job(
    out: &mut String,
    input: &WorkflowInput<'_>,
    program: Option<&str>,
    install: &str,
    run: &str,
) {
    setup_steps(out, input, program, install);
    let _ = write!(
        out,
        "      - name: Replay the evals\n        env:\n          \
         MCPEVAL_OUTPUT_DIR: target/mcpeval\n        run: {run}\n      \
         - name: Keep the results for the gate\n        if: ${{{{ !cancelled() }}}}\n        \
         uses: actions/upload-artifact@v4\n        with:\n          name: mcpeval-shard\n          \
         path: target/mcpeval\n          if-no-files-found: warn\n"
    );
}

/// The `gate` job: install mcpeval, merge the runs, keep the report, compare with the base
/// branch and comment.
fn gate_job(out: &mut String, install: &str) {
    out.push_str(
        "\n  gate:\n    needs: evals\n    if: ${{ !cancelled() && !inputs.record }}\n    \
         runs-on: ubuntu-latest\n    permissions:\n      actions: read\n      contents: read\n      \
         pull-requests: write\n    steps:\n",
    );
    install_steps(out, install);
    out.push_str(
        "      - uses: actions/download-artifact@v4\n        with:\n          \
         pattern: mcpeval-shard*\n          path: ${{ runner.temp }}/mcpeval-action/shards\n      \
         - name: Merge the runs\n        run: mcpeval action merge\n      \
         - name: Keep the report (the baseline of later pull requests)\n        \
         uses: actions/upload-artifact@v4\n        with:\n          name: mcpeval-report\n          \
         path: ${{ runner.temp }}/mcpeval-action/report\n          overwrite: true\n      \
         - name: Compare with the base branch and comment\n        env:\n          \
         GITHUB_TOKEN: ${{ github.token }}\n          INPUT_DIFF_FLAGS: \"\"\n        \
         run: mcpeval action gate\n",
    );
}

/// The `record` job: set up, record against the live API with the agent's key,
/// commit the cassettes and snapshots.
fn record_job(
    out: &mut String,
    input: &WorkflowInput<'_>,
    program: Option<&str>,
    install: &str,
    run: &str,
    key: Option<&str>,
) {
    out.push_str(
        "\n  record:\n    if: ${{ inputs.record }}\n    runs-on: ubuntu-latest\n    \
         timeout-minutes: 60\n    permissions:\n      contents: write\n    steps:\n",
    );
    setup_steps(out, input, program, install);
    out.push_str("      - name: Record the cassettes and snapshots against the live API\n");
    match key {
        Some(key) => {
            let _ = write!(
                out,
                "        env:\n          {key}: ${{{{ secrets.{key} }}}}\n"
            );
        }
        None => out.push_str(
            "        # The agent is an Agent file: give it what it needs (its key as a secret)\n\
             \x20       # in this step's env.\n        env:\n",
        ),
    }
    let _ = write!(
        out,
        "          MCPEVAL_RECORD_MODE: all\n          INSTA_UPDATE: always\n        \
         run: {run}\n      - name: Commit the cassettes and snapshots\n        run: |\n          \
         git config user.name \"github-actions[bot]\"\n          \
         git config user.email \"41898282+github-actions[bot]@users.noreply.github.com\"\n          \
         git add evals\n          \
         git commit -m \"Re-record the evals' cassettes and snapshots\" || echo \"nothing changed\"\n          \
         git push\n"
    );
}

/// Checkout, toolchain, the agent's program, and mcpeval when the evals run through it
/// (`mcpeval check`) or the server is the `mcpeval` program (found on PATH, as on the machine
/// that ran `init`).
fn setup_steps(out: &mut String, input: &WorkflowInput<'_>, program: Option<&str>, install: &str) {
    out.push_str(
        "      - uses: actions/checkout@v4\n      - uses: dtolnay/rust-toolchain@stable\n      \
         - uses: Swatinem/rust-cache@v2\n",
    );
    if let Some(program) = program {
        let _ = write!(
            out,
            "      - uses: actions/setup-node@v4\n        with:\n          node-version: 22\n      \
             # The agent program, pinned as mcpeval's own CI pins it: a cassette records what\n      \
             # one version sent.\n      - run: npm install --global {program}\n"
        );
    }
    let mut server_is_mcpeval = false;
    if let ServerEntry::Stdio { command, .. } = input.server {
        server_is_mcpeval = command == "mcpeval";
        if !server_is_mcpeval {
            let _ = writeln!(
                out,
                "      # The server's command ({}) must run here: install what it needs above.",
                quoted(command)
            );
        }
    }
    if !input.crate_harness || server_is_mcpeval {
        install_steps(out, install);
    }
}

/// cargo-binstall, then the install line.
fn install_steps(out: &mut String, install: &str) {
    let _ = write!(
        out,
        "      - uses: cargo-bins/cargo-binstall@main\n      - name: Install mcpeval\n        \
         run: |\n          {install}\n"
    );
}

/// The agent's key variable and its program's npm package at the tested version
/// (`@openai/codex@0.169.0`).
fn agent_needs(agent: &AgentChoice) -> (Option<&'static str>, Option<String>) {
    let AgentChoice::Builtin { kind, model } = agent else {
        return (None, None);
    };
    let program = crate::config::builtin_kind(kind)
        .and_then(|builtin| builtin.program)
        .map(|program| format!("{}@{}", program.package, program.tested_version));
    let key = crate::config::key_variable(kind, model.as_deref());
    (key, program)
}

#[cfg(test)]
#[path = "workflow_tests.rs"]
mod tests;
