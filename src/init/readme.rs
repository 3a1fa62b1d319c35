//! `evals/<server>/README.md`: what `mcpeval init` generated, what a human must write before
//! the eval means anything, and the commands that come next.

use std::fmt::Write as _;

use super::headers::entry_headers;
use super::tools::one_line;
use super::{AgentChoice, Scaffold, ServerEntry};
use crate::plumbing::text::cut_at_word;

/// What the recording command sets so that its run accepts the call-trace snapshots.
const RECORD_SNAPSHOTS: &str = "INSTA_UPDATE=always";

/// Items of one kind named before "and N more".
const NAMED: usize = 20;

/// The README's text.
pub fn readme(scaffold: &Scaffold<'_>) -> String {
    let surface = scaffold.surface;
    let eval = scaffold.eval;
    let mut out = format!("# Evals of {}\n\n", one_line(&scaffold.server_label));
    let _ = writeln!(
        out,
        "`mcpeval init` wrote these files from what the server listed: {}, {}, {} and {}.\n",
        count(scaffold.tools.len(), "tool"),
        count(surface.resources.len(), "resource"),
        count(surface.resource_templates.len(), "resource template"),
        count(surface.prompts.len(), "prompt"),
    );
    out.push_str("## What was generated\n\n");
    let agent = match scaffold.agent {
        AgentChoice::Builtin { kind, .. } => format!("`builtin.{kind}`"),
        AgentChoice::File { path } => format!("the Agent file `{path}`"),
    };
    let _ = writeln!(
        out,
        "- `eval.yaml`: the agent ({agent}), the MCP config, and one task set per tool. Its\n  \
         `toolsUsed` entry checks only that the agent called that tool, with arguments of the\n  \
         types the tool's input schema asks for (`$type`; `$match` for enums).\n\
         - `mcp-config.yaml`: how the evals start the server.\n\
         - `tasks/*.yaml`: one task per tool, labelled `tool: <name>`. Its prompt was written\n  \
         mechanically from the tool's name, description and required arguments."
    );
    if scaffold.crate_harness {
        out.push_str(
            "- `tests/evals.rs` and the `Cargo.toml` lines (the `mcpeval-harness`\n  \
             dev-dependency, a `[[test]]` named `evals` with `harness = false`) that make every task a\n  \
             `cargo test`.\n",
        );
    }
    out.push_str(
        "\n## What you must write\n\n\
         A generated prompt is not a test: it names the tool and asks for values of the right\n\
         type, which shows little more than that the agent can read a tool list. For each tool\n\
         you mean to test:\n\n\
         1. Rewrite the prompt in its `tasks/` file as a user would ask, with concrete values\n   \
         (\"What is 2 plus 40?\", not \"Use the `add` tool\").\n\
         2. Tighten its `arguments` pattern in `eval.yaml` to those values (`a: 2`,\n   \
         `path: {$match: \"^/tmp/\"}`).\n\
         3. Add `verify` steps that check the answer (a script reading\n   \
         `$MCPEVAL_AGENT_OUTPUT`, or `llmJudge`), and bounds such as `maxToolCalls`, or\n   \
         `toolsNotUsed` for tools that must not be called.\n\
         4. Delete the tasks of tools you do not mean to test; copy a task, keeping its `tool`\n   \
         label, to test a tool more than once.\n",
    );
    let lacking: Vec<String> = scaffold
        .tools
        .iter()
        .filter(|tool| !tool.problems.is_empty())
        .map(|tool| format!("`{}`", cut_at_word(&one_line(&tool.name), 80)))
        .collect();
    if !lacking.is_empty() {
        let _ = writeln!(
            out,
            "\nDefinitions that lack something (each task file says what): {}.",
            named(&lacking)
        );
    }
    uncovered(&mut out, scaffold);
    next_steps(&mut out, scaffold, eval);
    out
}

/// What the server offers beyond its tools, which no generated task uses.
fn uncovered(out: &mut String, scaffold: &Scaffold<'_>) {
    let surface = scaffold.surface;
    let names = |items: &[serde_json::Value], key: &str| -> Vec<String> {
        items
            .iter()
            .filter_map(|item| item[key].as_str())
            .map(|name| format!("`{}`", cut_at_word(&one_line(name), 80)))
            .collect()
    };
    let kinds = [
        (
            "Resources",
            names(&surface.resources, "uri"),
            "`resourcesRead`",
        ),
        (
            "Resource templates",
            names(&surface.resource_templates, "uriTemplate"),
            "`resourcesRead` with a `uriPattern`",
        ),
        ("Prompts", names(&surface.prompts, "name"), "`promptsUsed`"),
    ];
    if kinds.iter().all(|(_, names, _)| names.is_empty()) {
        return;
    }
    out.push_str("\nNo generated task uses these; write tasks for the ones that matter:\n\n");
    for (kind, names, assertion) in kinds {
        if !names.is_empty() {
            let _ = writeln!(
                out,
                "- {kind} (assert with {assertion}): {}.",
                named(&names)
            );
        }
    }
}

fn next_steps(out: &mut String, scaffold: &Scaffold<'_>, eval: &str) {
    let key = match scaffold.agent {
        AgentChoice::Builtin { kind, model } => crate::config::key_variable(kind, model.as_deref()),
        AgentChoice::File { .. } => None,
    };
    let with_key = match key {
        Some(var) => format!("{var}=… "),
        None => String::new(),
    };
    out.push_str("\n## Next\n\n");
    if matches!(scaffold.server, ServerEntry::Http { .. }) {
        out.push_str(
            "Start the server first: the evals reach it at the URL in `mcp-config.yaml`.\n\n",
        );
    }
    credentials(out, scaffold);
    out.push_str("```sh\n");
    let file = format!("evals/{eval}/eval.yaml");
    let (list, run) = if scaffold.crate_harness {
        (
            "cargo test --test evals -- --list".to_owned(),
            "cargo test --test evals".to_owned(),
        )
    } else {
        (
            format!("mcpeval check {file} -- --list"),
            format!("mcpeval check {file}"),
        )
    };
    // As the project README: the recording run accepts the snapshots (insta's
    // `INSTA_UPDATE=always`); by default they would wait as `.snap.new` files.
    let record = format!("{with_key}{RECORD_SNAPSHOTS} {run}");
    let width = list.len().max(record.len()) + 2;
    let _ = writeln!(out, "{list:width$}# the tasks, as tests");
    let _ = writeln!(
        out,
        "{record:width$}# once, with a key: records cassettes/, accepts the snapshots"
    );
    let add = format!("git add evals/{eval}");
    let _ = writeln!(
        out,
        "{add:width$}# commit cassettes/ and snapshots/ with the eval"
    );
    let _ = writeln!(out, "{run:width$}# CI replays them: no key, no network");
    out.push_str("```\n");
    let _ = writeln!(
        out,
        "\nWithout `{RECORD_SNAPSHOTS}` (as in insta) the recording run leaves each call trace as a\n\
         `.snap.new` file for `cargo insta review`, and under CI writes none."
    );
    if key.is_none() {
        out.push_str("\nRecord with the key your agent's LLM API needs.\n");
    }
}

/// The variables that hold the credentials of the server's headers, when there are any.
fn credentials(out: &mut String, scaffold: &Scaffold<'_>) {
    let variables: Vec<(String, String)> = entry_headers(scaffold.eval, scaffold.server)
        .into_iter()
        .filter_map(|header| Some((header.variable?.0, header.name)))
        .collect();
    if variables.is_empty() {
        return;
    }
    out.push_str(
        "The server needs headers that hold credentials. `mcp-config.yaml` reads them from\n\
         these variables, never from the file: set them wherever the evals run (in CI, from a\n\
         secret), for recording and for replaying alike (the server is live in both).\n\n",
    );
    for (var, name) in variables {
        let _ = writeln!(
            out,
            "- `{var}`: the `{}` header's credential",
            one_line(&name)
        );
    }
    out.push('\n');
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The first [`NAMED`] items, and how many more.
fn named(items: &[String]) -> String {
    let shown = items[..items.len().min(NAMED)].join(", ");
    match items.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
