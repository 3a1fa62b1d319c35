//! The texts of the eval `mcpeval init` writes: `eval.yaml`, `mcp-config.yaml` and one task
//! file per tool, each with comments that say what was generated and what a human must
//! write. Pure functions of the [`Scaffold`]: the same server gives the same bytes.

use std::fmt::Write as _;

use super::headers::written_headers;
use super::tools::{ArgumentHint, ToolSpec};
use super::yaml::{comment_text, scalar};
use super::{AgentChoice, Scaffold, ServerEntry};
use crate::plumbing::text::cut_at_word;

/// Longest description a prompt repeats.
const PROMPT_DESCRIPTION: usize = 300;

/// Longest text a comment line holds.
const COMMENT: usize = 200;

/// Longest text of the comment above a task set.
const SET_COMMENT: usize = 100;

/// `eval.yaml`: the agent, the MCP config, and one task set per tool whose `toolsUsed`
/// entry checks the tool's required arguments by type.
pub fn eval_yaml(scaffold: &Scaffold<'_>) -> String {
    let mut out = String::new();
    let count = scaffold.tools.len();
    let tools = if count == 1 { "tool" } else { "tools" };
    let _ = writeln!(
        out,
        "# Written by `mcpeval init` from the {count} {tools} that {} listed.\n\
         # A scaffold, not a finished eval: each task's prompt was written mechanically from its\n\
         # tool's definition, and each task set below only checks that the agent called that\n\
         # tool with arguments of the right types. Before you rely on it (README.md says more):\n\
         #   - rewrite each prompt in tasks/ as a user would ask, with concrete values;\n\
         #   - tighten each `arguments` pattern below to the values that prompt asks for;\n\
         #   - add verify steps that check the agent's answer, and delete the tasks of tools\n\
         #     you do not mean to test.",
        comment_text(&scaffold.server_label, COMMENT)
    );
    out.push_str("kind: Eval\nmetadata:\n");
    let _ = writeln!(out, "  name: {}", scalar(scaffold.eval));
    out.push_str("config:\n  agent:\n");
    match scaffold.agent {
        AgentChoice::Builtin { kind, model } => {
            let _ = writeln!(out, "    type: {}", scalar(&format!("builtin.{kind}")));
            if let Some(model) = model {
                let _ = writeln!(out, "    model: {}", scalar(model));
            }
        }
        AgentChoice::File { path } => {
            out.push_str("    type: file\n");
            let _ = writeln!(out, "    path: {}", scalar(path));
        }
    }
    out.push_str("  mcpConfigFile: mcp-config.yaml\n");
    out.push_str(
        "  # New and changed call traces wait in snapshots/ for `cargo insta review`.\n  \
         snapshot: review\n",
    );
    out.push_str("  taskSets:\n");
    for tool in scaffold.tools {
        task_set(&mut out, scaffold.eval, tool);
    }
    out
}

/// One tool's task set: its tasks by label, its `toolsUsed` entry.
fn task_set(out: &mut String, server: &str, tool: &ToolSpec) {
    let about = match &tool.description {
        Some(description) => format!("{}: {description}", tool.name),
        None => format!("{} (no description)", tool.name),
    };
    let _ = writeln!(out, "    # {}", comment_text(&about, SET_COMMENT));
    out.push_str("    - glob: tasks/*.yaml\n      labelSelector:\n");
    let _ = writeln!(out, "        tool: {}", scalar(&tool.name));
    out.push_str("      assertions:\n        toolsUsed:\n");
    let _ = writeln!(out, "          - server: {}", scalar(server));
    let _ = writeln!(out, "            tool: {}", scalar(&tool.name));
    let checked: Vec<_> = tool
        .required
        .iter()
        .filter(|a| !matches!(a.pattern, ArgumentHint::Unchecked(_)))
        .collect();
    let indent = if checked.is_empty() {
        "            "
    } else {
        out.push_str("            arguments:\n");
        "              "
    };
    for argument in &tool.required {
        let key = scalar(&argument.name);
        match &argument.pattern {
            ArgumentHint::Type(kind) => {
                let _ = writeln!(out, "{indent}{key}: {{$type: {}}}", scalar(kind));
            }
            ArgumentHint::Match(regex) => {
                let _ = writeln!(out, "{indent}{key}: {{$match: {}}}", scalar(regex));
            }
            ArgumentHint::Unchecked(why) => {
                let line = format!("{}: not checked: {why}", argument.name);
                let _ = writeln!(out, "{indent}# {}", comment_text(&line, COMMENT));
            }
        }
    }
}

/// `mcp-config.yaml`: the one server, as the eval starts it.
pub fn mcp_config_yaml(scaffold: &Scaffold<'_>) -> String {
    let mut out = String::from(
        "# How the evals start the server (`${VAR}` and `${VAR:-default}` expand from the\n\
         # environment). Written by `mcpeval init`.\nmcpServers:\n",
    );
    let _ = writeln!(out, "  {}:", scalar(scaffold.eval));
    match scaffold.server {
        ServerEntry::Stdio { command, args } => {
            let _ = writeln!(out, "    command: {}", scalar(command));
            if !args.is_empty() {
                let args: Vec<String> = args.iter().map(|a| scalar(a)).collect();
                let _ = writeln!(out, "    args: [{}]", args.join(", "));
            }
        }
        ServerEntry::Http { url, headers } => {
            out.push_str(
                "    # The server must be listening when the evals run: start it first (or in a\n    \
                 # setup step).",
            );
            let headers = written_headers(scaffold.eval, headers);
            if headers.is_empty() {
                out.push_str(
                    " A key goes in a header from a variable, never in this file:\n    \
                     # headers: {Authorization: \"Bearer ${MY_SERVER_TOKEN}\"}\n",
                );
            } else if headers.iter().any(|h| h.variable.is_some()) {
                out.push_str(
                    " A credential comes from a variable, never from this file:\n    \
                     # set each ${VAR} below wherever the evals run (README.md).\n",
                );
            } else {
                out.push('\n');
            }
            let _ = writeln!(out, "    url: {}", scalar(url));
            if !headers.is_empty() {
                out.push_str("    headers:\n");
                for header in &headers {
                    let _ = writeln!(
                        out,
                        "      {}: {}",
                        scalar(&header.name),
                        scalar(&header.text)
                    );
                }
            }
        }
        ServerEntry::Binary { bin, var } => {
            let _ = writeln!(
                out,
                "    # This crate's binary `{bin}`: tests/evals.rs hands over its path with\n    \
                 #   .env(\"{var}\", env!(\"CARGO_BIN_EXE_{bin}\"))\n    \
                 # (for `mcpeval check`, build it and set {var} yourself)."
            );
            let _ = writeln!(out, "    command: {}", scalar(&format!("${{{var}}}")));
        }
    }
    out
}

/// The task file of `tool`, named `task_name`.
pub fn task_yaml(scaffold: &Scaffold<'_>, tool: &ToolSpec, task_name: &str) -> String {
    let mut out = String::new();
    let name = comment_text(&tool.name, COMMENT);
    let _ = writeln!(
        out,
        "# Written by `mcpeval init` for the tool `{name}`: a starting point, not a test yet.\n\
         # The prompt below names the tool and its arguments, which a user never would:\n\
         # rewrite it as a real request with concrete values, tighten this tool's `arguments`\n\
         # pattern in ../eval.yaml to those values, and add `verify` steps that check the\n\
         # agent's answer (see README.md).\n\
         #\n\
         # The tool as {} lists it:",
        comment_text(&scaffold.server_label, COMMENT)
    );
    let description = tool.description.as_deref().unwrap_or("(no description)");
    let _ = writeln!(
        out,
        "#   description: {}",
        comment_text(description, COMMENT)
    );
    let required: Vec<String> = tool
        .required
        .iter()
        .map(|a| format!("{} ({})", a.name, a.kind))
        .collect();
    let _ = writeln!(
        out,
        "#   required: {}",
        comment_text(&list(&required), COMMENT)
    );
    let _ = writeln!(
        out,
        "#   optional: {}",
        comment_text(&list(&tool.optional), COMMENT)
    );
    if !tool.problems.is_empty() {
        out.push_str("# Problems with its definition:\n");
        for problem in &tool.problems {
            let _ = writeln!(out, "#   - {}", comment_text(problem, COMMENT));
        }
    }
    out.push_str("kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata:\n");
    let _ = writeln!(out, "  name: {}", scalar(task_name));
    out.push_str("  labels:\n");
    let _ = writeln!(out, "    tool: {}", scalar(&tool.name));
    out.push_str("spec:\n  prompt:\n    inline: |\n");
    for line in prompt_lines(scaffold, tool) {
        let _ = writeln!(out, "      {line}");
    }
    out
}

/// The generated prompt, one line each (no line starts or ends with a space).
fn prompt_lines(scaffold: &Scaffold<'_>, tool: &ToolSpec) -> Vec<String> {
    let one_line = super::tools::one_line;
    let mut lines = vec![format!(
        "Use the `{}` tool of the {} MCP server.",
        one_line(&tool.name),
        one_line(scaffold.eval)
    )];
    if let Some(description) = &tool.description {
        lines.push(format!(
            "What it does, as the server describes it: {}",
            cut_at_word(description, PROMPT_DESCRIPTION)
        ));
    }
    if tool.required.is_empty() {
        lines.push("It needs no arguments.".to_owned());
    } else {
        let arguments: Vec<String> = tool
            .required
            .iter()
            .map(|a| format!("{} ({})", one_line(&a.name), cut_at_word(&a.kind, 100)))
            .collect();
        lines.push(format!(
            "Call it with {}, set to values you choose.",
            arguments.join(", ")
        ));
    }
    lines.push("Then say in one sentence what it returned.".to_owned());
    lines
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}
