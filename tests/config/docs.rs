//! The README and the book (`docs/src`) cannot drift from the code: every whole-file YAML or
//! JSON example loads with mcpeval's own loaders, every `mcpeval …` command line parses with
//! the real command line, every `MCPEVAL_*` variable the code reads is in the reference, every
//! key the loaders accept is documented, the CI chapter's workflows (and the action they use,
//! `action.yml`) pass actionlint, and the book builds with mdBook.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcpeval::config::{
    TaskContext, load_agent_file, load_eval_with, load_mcp_config_with, load_task,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README, CONTRIBUTING.md and every page of the book.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let contributing = root().join("CONTRIBUTING.md");
    if contributing.exists() {
        files.push(contributing);
    }
    let mut pages = Vec::new();
    collect_markdown(&root().join("docs/src"), &mut pages);
    pages.sort();
    files.extend(pages);
    files
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            collect_markdown(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// A fenced code block: where it starts, its language and its text (mdBook's
/// `{{#include file}}` lines replaced by the file).
struct Block {
    at: String,
    lang: String,
    text: String,
}

fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let lang = info.split([',', ' ']).next().unwrap_or("").to_owned();
                    open = Some((index + 1, lang, String::new()));
                }
            }
            Some((start, lang, body)) => {
                if trimmed.starts_with("```") {
                    blocks.push(Block {
                        at: format!("{}:{start}", file.display()),
                        lang: std::mem::take(lang),
                        text: std::mem::take(body),
                    });
                    open = None;
                } else if let Some(include) = trimmed
                    .strip_prefix("{{#include ")
                    .and_then(|rest| rest.strip_suffix("}}"))
                {
                    let path = file.parent().unwrap().join(include.trim());
                    body.push_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
                        panic!("{}: {{{{#include {include}}}}}: {e}", file.display())
                    }));
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

fn all_blocks() -> Vec<Block> {
    doc_files().iter().flat_map(|file| blocks(file)).collect()
}

/// What a whole-file example is, by its top-level keys.
enum FileKind {
    Eval,
    Task,
    Agent,
    McpConfig,
}

fn file_kind(block: &Block) -> Option<FileKind> {
    let value: serde_json::Value = match block.lang.as_str() {
        "yaml" | "yml" => serde_saphyr::from_str(&block.text).ok()?,
        "json" => serde_json::from_str(&block.text).ok()?,
        _ => return None,
    };
    let map = value.as_object()?;
    match map.get("kind").and_then(|kind| kind.as_str()) {
        Some("Eval") => Some(FileKind::Eval),
        Some("Task") => Some(FileKind::Task),
        Some("Agent") => Some(FileKind::Agent),
        _ if map.contains_key("mcpServers") => Some(FileKind::McpConfig),
        _ => None,
    }
}

#[test]
fn every_whole_file_example_loads() {
    let dir = tempfile::tempdir().unwrap();
    // Any variable has a value; one named like a URL has a URL.
    let any_value = |name: &str| {
        Some(if name.contains("URL") {
            "http://127.0.0.1:8080/mcp".to_owned()
        } else {
            "value".to_owned()
        })
    };
    let mut problems = Vec::new();
    let mut loaded = 0;
    for (index, block) in all_blocks().iter().enumerate() {
        let Some(kind) = file_kind(block) else {
            continue;
        };
        let file = dir.path().join(format!("example-{index}.{}", block.lang));
        std::fs::write(&file, &block.text).unwrap();
        let errors = match kind {
            FileKind::Eval => load_eval_with(&file, &any_value).err(),
            FileKind::Task => load_task(&file, TaskContext::default()).err(),
            FileKind::Agent => load_agent_file(&file).err(),
            FileKind::McpConfig => load_mcp_config_with(&file, &any_value).err(),
        };
        loaded += 1;
        // An example stands alone: the files it names (its MCP config, scripts, task files)
        // are not beside it. Everything else must hold.
        for error in errors.into_iter().flat_map(|e| e.0) {
            let text = error.to_string();
            if !text.contains("file not found") {
                problems.push(format!("{}: {text}", block.at));
            }
        }
    }
    assert!(loaded >= 6, "only {loaded} whole-file examples found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `line` as shell words, up to its first comment or shell operator; `None` when it holds
/// a placeholder (`<NAME>`, `[OPTIONS]`, `…`).
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '#' if !in_word => break,
            '|' | ';' | '&' | '>' if !in_word || word.is_empty() => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    let placeholder =
        |w: &String| w.contains('<') || w.contains('…') || w.contains("...") || w.starts_with('[');
    (!words.iter().any(placeholder)).then_some(words)
}

/// The `mcpeval` command lines of the docs' shell blocks (also `cargo run -- …`), as the
/// words after `mcpeval`, with where they are.
fn command_lines() -> Vec<(String, Vec<String>)> {
    let mut lines = Vec::new();
    for block in all_blocks() {
        if !matches!(
            block.lang.as_str(),
            "sh" | "bash" | "console" | "shell" | "text" | ""
        ) {
            continue;
        }
        for line in block.text.lines() {
            let line = line.trim_start().trim_start_matches("$ ");
            let Some(words) = shell_words(line) else {
                continue;
            };
            // Skip VAR=value assignments before the command.
            let mut rest = words.iter().skip_while(|w| {
                w.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                })
            });
            let args: Vec<String> = match rest.next().map(String::as_str) {
                Some("mcpeval") => rest.cloned().collect(),
                // `cargo run -- …`, not `cargo test --test run -- …`.
                Some("cargo") if rest.clone().next().is_some_and(|w| w == "run") => {
                    let all: Vec<&String> = words.iter().collect();
                    let Some(dash) = all.iter().position(|w| *w == "--") else {
                        continue;
                    };
                    all[dash + 1..].iter().map(|w| (*w).clone()).collect()
                }
                _ => continue,
            };
            if args.is_empty() {
                continue;
            }
            lines.push((format!("{}: {line}", block.at), args));
        }
    }
    lines
}

#[test]
fn every_mcpeval_command_line_parses() {
    let lines = command_lines();
    assert!(
        lines.len() >= 10,
        "only {} command lines found",
        lines.len()
    );
    let mut problems = Vec::new();
    for (at, args) in &lines {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args(args)
            .env("MCPEVAL_PARSE_ONLY", "1")
            .output()
            .unwrap();
        if !out.status.success() {
            problems.push(format!("{at}\n{}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_misspelled_command_line_is_caught() {
    // The check above can fail: a flag the CLI does not have, and one for the test runner.
    for line in [
        "mcpeval check e.yaml --recordmode none",
        "mcpeval check e.yaml -- --lsit",
        "mcpeval reprot",
    ] {
        let args = shell_words(line).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args(&args[1..])
            .env("MCPEVAL_PARSE_ONLY", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{line}");
    }
}

/// The `MCPEVAL_*` and `INSTA_*` names in the source: what the code reads and sets.
fn variables_in_source(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            variables_in_source(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs")
            || path.to_string_lossy().ends_with("_tests.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for prefix in ["\"MCPEVAL_", "\"INSTA_"] {
            for (start, _) in text.match_indices(prefix) {
                let name: String = text[start + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                out.insert(name.trim_end_matches('_').to_owned());
            }
        }
    }
}

/// The `MCPEVAL_*` and `INSTA_*` names of the environment reference's table rows.
fn variables_in_reference(reference: &str) -> BTreeSet<String> {
    reference
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|rest| rest.split(" |").next())
        .flat_map(|cell| cell.split(", "))
        .map(|name| name.trim_matches('`').to_owned())
        .filter(|name| name.starts_with("MCPEVAL_") || name.starts_with("INSTA_"))
        .collect()
}

#[test]
fn every_mcpeval_variable_is_in_the_reference() {
    let mut names = BTreeSet::new();
    variables_in_source(&root().join("src"), &mut names);
    names.extend(["MCPEVAL_OUTPUT_DIR".to_owned()]);
    let reference =
        std::fs::read_to_string(root().join("docs/src/reference/environment.md")).unwrap();
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| !reference.contains(&format!("| `{name}` |")))
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    assert!(
        missing.is_empty(),
        "not in the reference table: {missing:?}"
    );
}

#[test]
fn every_variable_of_the_reference_is_in_the_code() {
    let mut names = BTreeSet::new();
    variables_in_source(&root().join("src"), &mut names);
    let reference =
        std::fs::read_to_string(root().join("docs/src/reference/environment.md")).unwrap();
    let documented = variables_in_reference(&reference);
    assert!(documented.len() >= 10, "{documented:?}");
    let unknown: Vec<&String> = documented.difference(&names).collect();
    assert!(
        unknown.is_empty(),
        "in docs/src/reference/environment.md but read or set nowhere in src/: {unknown:?}"
    );
}

/// Every key of the files' serde types (`struct Raw…` under `src/config/`, as written in the
/// files: camelCase or renamed).
fn loader_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    // The wings of `src/config/` are folders.
    for path in crate::support::files::rust_files(&root().join("src/config")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let Some(rest) = line
                .trim_start()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(in crate::config) ")
                .strip_prefix("struct Raw")
            else {
                continue;
            };
            if !rest.trim_end().ends_with('{') {
                continue;
            }
            let attributes: String = lines[..index]
                .iter()
                .rev()
                .take_while(|l| {
                    l.trim_start().starts_with("#[") || l.trim_start().starts_with("///")
                })
                .copied()
                .collect();
            if !attributes.contains("Deserialize") {
                continue;
            }
            let camel = attributes.contains("rename_all = \"camelCase\"");
            let mut rename: Option<String> = None;
            let mut skip = false;
            for field in &lines[index + 1..] {
                let field = field.trim();
                if field == "}" {
                    break;
                }
                if let Some(attr) = field.strip_prefix("#[serde(") {
                    if let Some(at) = attr.find("rename = \"") {
                        let name = &attr[at + 10..];
                        rename = name.split('"').next().map(str::to_owned);
                    }
                    skip |= attr.contains("flatten") || attr.contains("skip");
                    continue;
                }
                if field.starts_with("//") || field.starts_with("#[") {
                    continue;
                }
                let field = field
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(super) ")
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub(in crate::config) ");
                if let Some((name, _)) = field.split_once(':')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !name.is_empty()
                {
                    let key = rename.take().unwrap_or_else(|| {
                        if camel {
                            camel_case(name)
                        } else {
                            name.to_owned()
                        }
                    });
                    if !std::mem::take(&mut skip) {
                        keys.insert(key.trim_start_matches("r#").to_owned());
                    }
                }
            }
        }
    }
    keys
}

fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The words of the book's code: its inline code spans and code blocks, split at anything
/// that is not part of a key (so `{timeout, cleanupTimeout}` names both keys).
fn code_words(text: &str) -> BTreeSet<String> {
    let mut code = String::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        for (index, span) in line.split('`').enumerate() {
            if index % 2 == 1 {
                code.push_str(span);
                code.push('\n');
            }
        }
    }
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_key_the_loaders_accept_is_documented() {
    let keys = loader_keys();
    assert!(keys.len() >= 50, "only {} keys found: {keys:?}", keys.len());
    let mut words = BTreeSet::new();
    for file in doc_files()
        .iter()
        .filter(|file| file.starts_with(root().join("docs")))
    {
        words.extend(code_words(&std::fs::read_to_string(file).unwrap()));
    }
    let missing: Vec<&String> = keys.iter().filter(|key| !words.contains(*key)).collect();
    assert!(
        missing.is_empty(),
        "keys the loaders accept that the book's code does not name: {missing:?}"
    );
}

#[test]
fn the_ci_chapters_workflow_passes_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let workflow = "docs/src/ci/evals.yml";
    let out = Command::new(&actionlint)
        .arg(root().join(workflow))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{workflow}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A workflow that uses the action as the book's CI chapter shows it (two partitions and a
/// gate), in a repository of its own that holds `action.yml` and uses it as `./`:
/// actionlint then reads the action and checks its inputs too.
#[test]
fn the_action_and_its_sample_workflow_pass_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let repo = tempfile::tempdir().unwrap();
    let workflows = repo.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    std::fs::copy(root().join("action.yml"), repo.path().join("action.yml")).unwrap();
    let chapter = std::fs::read_to_string(root().join("docs/src/ci.md")).unwrap();
    let sample = action_sample(&chapter);
    // actionlint finds the repository's root (where `./` is) by its .git.
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(git.success());
    for workflow in [sample.clone(), sample.replace("mode: gate", "mood: gate")] {
        let local = workflow.replace("uses: OWNER/REPO@vX.Y.Z", "uses: ./");
        std::fs::write(workflows.join("gate.yml"), local).unwrap();
        let out = Command::new(&actionlint)
            .arg(".github/workflows/gate.yml")
            .current_dir(repo.path())
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout);
        if workflow == sample {
            assert!(out.status.success(), "{shown}");
        } else {
            // The check can fail: an input the action does not have.
            assert!(shown.contains(r#"input "mood" is not defined"#), "{shown}");
        }
    }
}

/// The chapter's jobs that use the action (the ```yaml block with `OWNER/REPO@vX.Y.Z`), in
/// a workflow of their own.
fn action_sample(chapter: &str) -> String {
    let block = chapter
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("```").map(|(block, _)| block))
        .find(|block| block.contains("uses: OWNER/REPO@vX.Y.Z"))
        .expect("docs/src/ci.md shows the action's jobs");
    format!(
        "name: evals\non:\n  push:\n    branches: [main]\n  pull_request:\npermissions:\n  \
         contents: read\n{block}"
    )
}

/// actionlint reads a composite action only for its inputs: its steps, put in a workflow's
/// job (the inputs as `workflow_dispatch` inputs), get the whole check — expressions, step
/// ids, the inputs of the actions they use.
#[test]
fn the_actions_steps_pass_actionlint_as_a_job() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let action: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(root().join("action.yml")).unwrap())
            .unwrap();
    let inputs: serde_json::Map<String, serde_json::Value> = (action["inputs"].as_object())
        .unwrap()
        .keys()
        .map(|name| (name.clone(), serde_json::json!({"type": "string"})))
        .collect();
    assert_eq!(action["runs"]["using"], "composite");
    // JSON is YAML.
    let workflow = serde_json::json!({
        "name": "action",
        "on": {"workflow_dispatch": {"inputs": inputs}},
        "permissions": {"contents": "read"},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("action.yml");
    std::fs::write(&file, serde_json::to_string_pretty(&workflow).unwrap()).unwrap();
    let out = Command::new(&actionlint).arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_book_builds() {
    let Some(mdbook) = support::peers::require("tools/bin/mdbook") else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(mdbook)
        .args(["build", "docs", "--dest-dir"])
        .arg(out_dir.path())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(out_dir.path().join("ci.html")).unwrap();
    assert!(
        page.contains("run: mcpeval action gate"),
        "the workflow is included"
    );
}

fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The long flags an `mcpeval` command's help lists: option lines, `  -x, --flag <VALUE>  text`.
fn help_flags(command: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for line in help(&[command]).lines() {
        let line = line.trim_start();
        // `-x, --flag`: the long one (a description may hold ", " too).
        let line = match line.as_bytes() {
            [b'-', short, b',', b' ', ..] if *short != b'-' => &line[4..],
            _ => line,
        };
        if let Some(flag) = line
            .split_whitespace()
            .next()
            .filter(|w| w.starts_with("--") && w.len() > 2)
        {
            flags.insert(flag.to_owned());
        }
    }
    flags
}

/// The commands `mcpeval --help` lists (without `help`).
fn cli_commands() -> Vec<String> {
    let top = help(&[]);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(commands.len() >= 7, "{top}");
    commands
}

/// What docs/src/reference/cli.md says about `command`: its section (from its `## `
/// heading to the next), or its row of a table.
fn cli_section<'a>(reference: &'a str, command: &str) -> Option<&'a str> {
    let heading = format!("## `mcpeval {command}`");
    if let Some(start) = reference.find(&heading) {
        let rest = &reference[start + heading.len()..];
        let end = rest.find("\n## ").unwrap_or(rest.len());
        return Some(&rest[..end]);
    }
    let row = format!("| `mcpeval {command} ");
    let row_bare = format!("| `mcpeval {command}` ");
    reference
        .lines()
        .find(|line| line.starts_with(&row) || line.starts_with(&row_bare))
}

/// The long flags a text names in code: inline code spans that start with `--` or
/// `mcpeval`, and the `mcpeval` lines of code blocks.
fn flags_named(text: &str) -> BTreeSet<String> {
    let mut code = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
        } else if in_block {
            if line.trim_start().starts_with("mcpeval ") {
                code.push(line.to_owned());
            }
        } else {
            code.extend(
                line.split('`')
                    .skip(1)
                    .step_by(2)
                    .filter(|span| span.starts_with("--") || span.starts_with("mcpeval "))
                    .map(str::to_owned),
            );
        }
    }
    let mut flags = BTreeSet::new();
    for code in code {
        for word in code.split(|c: char| c.is_whitespace() || "`|()[],=".contains(c)) {
            let name = word.trim_end_matches(['.', ':', ';']);
            if name.len() > 2
                && name.starts_with("--")
                && name[2..]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
            {
                flags.insert(name.to_owned());
            }
        }
    }
    flags
}

/// The long flags of the test runner (`mcpeval check … -- <LIBTEST ARGS>`).
fn libtest_flags() -> BTreeSet<String> {
    use clap::CommandFactory;
    libtest_mimic::Arguments::command()
        .get_arguments()
        .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
        .collect()
}

#[test]
fn every_command_and_flag_is_in_the_reference() {
    let reference = std::fs::read_to_string(root().join("docs/src/reference/cli.md")).unwrap();
    let mut missing = Vec::new();
    for command in cli_commands() {
        let Some(section) = cli_section(&reference, &command) else {
            missing.push(format!("mcpeval {command}"));
            continue;
        };
        let named = flags_named(section);
        for flag in help_flags(&command) {
            if flag != "--help" && flag != "--version" && !named.contains(&flag) {
                missing.push(format!("mcpeval {command} {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in their command's part of docs/src/reference/cli.md: {missing:?}"
    );
}

#[test]
fn the_reference_names_no_flag_a_command_lacks() {
    let reference = std::fs::read_to_string(root().join("docs/src/reference/cli.md")).unwrap();
    let libtest = libtest_flags();
    assert!(libtest.contains("--exact"), "{libtest:?}");
    let mut unknown = Vec::new();
    let mut checked = 0;
    for command in cli_commands() {
        let Some(section) = cli_section(&reference, &command) else {
            continue;
        };
        let mut known = help_flags(&command);
        if command == "check" {
            known.extend(libtest.iter().cloned());
        }
        for flag in flags_named(section) {
            checked += 1;
            if !known.contains(&flag) {
                unknown.push(format!("mcpeval {command} {flag}"));
            }
        }
    }
    assert!(checked >= 20, "only {checked} flags named");
    assert!(
        unknown.is_empty(),
        "docs/src/reference/cli.md names flags the command does not have: {unknown:?}"
    );
}

#[test]
fn a_flag_in_the_wrong_commands_part_is_caught() {
    // The checks above can fail: `--junit` is `report`'s, not `diff`'s.
    let reference =
        "## `mcpeval diff`\n\n| `--junit <FILE>` | x |\n\n## `mcpeval report`\n\ntext\n";
    let diff = cli_section(reference, "diff").unwrap();
    assert!(flags_named(diff).contains("--junit"));
    assert!(!help_flags("diff").contains("--junit"));
    assert!(!flags_named(cli_section(reference, "report").unwrap()).contains("--junit"));
}

/// The exit codes `src/plumbing/exit.rs` defines: `pub const NAME: u8 = CODE;`.
fn exit_code_constants() -> BTreeSet<u8> {
    let text = std::fs::read_to_string(root().join("src/plumbing/exit.rs")).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("pub const "))
        .filter_map(|rest| rest.split_once(": u8 = "))
        .map(|(_, code)| code.trim_end_matches(';').parse().unwrap())
        .collect()
}

/// The codes of a Markdown table's rows whose first cell is a number.
fn table_codes(text: &str) -> BTreeSet<u8> {
    text.lines()
        .filter_map(|line| line.trim_start_matches("//!").trim().strip_prefix("| "))
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn the_exit_codes_reference_is_src_exit_rs() {
    let constants = exit_code_constants();
    assert!(
        constants.contains(&4) && constants.len() >= 8,
        "{constants:?}"
    );
    let page = std::fs::read_to_string(root().join("docs/src/reference/exit-codes.md")).unwrap();
    assert_eq!(
        table_codes(&page),
        constants,
        "docs/src/reference/exit-codes.md"
    );
    let module = std::fs::read_to_string(root().join("src/plumbing/exit.rs")).unwrap();
    assert_eq!(
        table_codes(&module),
        constants,
        "the table of src/plumbing/exit.rs"
    );
    // One table in the book: other pages link to it.
    let elsewhere: Vec<String> = doc_files()
        .iter()
        .filter(|file| !file.ends_with("reference/exit-codes.md"))
        .filter(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            table_codes(&text).len() >= 3 && text.contains("| code |")
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        elsewhere.is_empty(),
        "a second exit-code table: {elsewhere:?}"
    );
}

/// The directives of the script agent's chapter: its example script, one a line.
fn script_agent_example() -> String {
    let page = root().join("docs/src/script-agent.md");
    let block = blocks(&page)
        .into_iter()
        .find(|block| block.lang == "text" && block.text.contains("call "))
        .expect("the script agent's example script");
    block.text
}

#[test]
fn the_script_agents_help_names_every_directive() {
    let example = script_agent_example();
    // Each line of the example is a directive the agent runs (the comments after it in
    // parentheses are the page's), and `script-agent --help` names each.
    let help = help(&["script-agent"]);
    let mut words = BTreeSet::new();
    for line in example.lines().filter(|line| !line.starts_with('#')) {
        let directive = line.split("  (").next().unwrap().trim();
        let parsed = mcpeval::script_agent::parse_script(directive)
            .unwrap_or_else(|e| panic!("{directive}: {e}"));
        assert_eq!(parsed.len(), 1, "not a directive: {directive}");
        words.insert(directive.split_whitespace().next().unwrap().to_owned());
    }
    assert!(words.len() >= 11, "{words:?}");
    let missing: Vec<&String> = words
        .iter()
        .filter(|word| !help.contains(&format!("`{word} ")))
        .collect();
    assert!(
        missing.is_empty(),
        "`mcpeval script-agent --help` does not name: {missing:?}\n{help}"
    );
    // The parser ignores what is no directive, so an example line it skips is caught.
    assert!(
        mcpeval::script_agent::parse_script("pik s /x/")
            .unwrap()
            .is_empty()
    );
}

/// The relative links and images of a Markdown text: `](target)`, without `#anchor`.
fn relative_links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            let target = target.split('#').next().unwrap_or_default();
            (!target.is_empty() && !target.contains("://") && !target.starts_with("mailto:"))
                .then(|| target.to_owned())
        })
        .collect()
}

#[test]
fn every_relative_link_and_image_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in relative_links(&text) {
            checked += 1;
            if !file.parent().unwrap().join(&target).exists() {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(checked >= 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links: {broken:?}");
    // The check can fail: the path reports.md had.
    let reports = root().join("docs/src/reports.md");
    assert!(
        !reports
            .parent()
            .unwrap()
            .join("docs/html-report.png")
            .exists()
    );
}

#[test]
fn the_book_workflow_passes_actionlint_and_publishes_the_book() {
    let workflow = root().join(".github/workflows/book.yml");
    let text = std::fs::read_to_string(&workflow).unwrap();
    for needed in [
        "mdbook build docs",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
        "pages: write",
        "id-token: write",
    ] {
        assert!(text.contains(needed), "book.yml lacks {needed}");
    }
    // It uploads where mdBook writes: `build-dir`, relative to docs/.
    let book = std::fs::read_to_string(root().join("docs/book.toml")).unwrap();
    let build_dir = book
        .lines()
        .find_map(|line| line.strip_prefix("build-dir = "))
        .map_or("book", |dir| dir.trim_matches('"'));
    let uploaded = Path::new("docs").join(build_dir);
    let uploaded: PathBuf = uploaded
        .components()
        .fold(PathBuf::new(), |mut path, part| {
            match part {
                std::path::Component::ParentDir => {
                    path.pop();
                }
                part => path.push(part),
            }
            path
        });
    let uploaded = format!("path: {}", uploaded.display());
    assert!(text.contains(&uploaded), "book.yml lacks `{uploaded}`");
    // A push that changes what the book includes rebuilds it.
    for file in doc_files()
        .iter()
        .filter(|f| f.starts_with(root().join("docs")))
    {
        let page = std::fs::read_to_string(file).unwrap();
        for include in page.lines().filter_map(|line| {
            line.trim()
                .strip_prefix("{{#include ")
                .and_then(|rest| rest.strip_suffix("}}"))
        }) {
            let included = std::path::absolute(file.parent().unwrap().join(include.trim()))
                .unwrap()
                .components()
                .fold(PathBuf::new(), |mut path, part| {
                    match part {
                        std::path::Component::ParentDir => {
                            path.pop();
                        }
                        part => path.push(part),
                    }
                    path
                });
            // Some folder holding the included file is a `paths` entry (`schema/**`).
            let relative = included.strip_prefix(root()).unwrap();
            let covered = (relative.ancestors().skip(1))
                .filter(|dir| !dir.as_os_str().is_empty())
                .any(|dir| text.contains(&format!("{}/**", dir.display())));
            assert!(
                covered,
                "{}: includes {include}, but book.yml does not run on changes to it",
                file.display()
            );
        }
    }
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let out = Command::new(&actionlint).arg(&workflow).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn contributing_names_every_benchmark() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let benches: Vec<&str> = manifest
        .split("[[bench]]")
        .skip(1)
        .filter_map(|table| {
            let line = table.lines().find(|line| line.starts_with("name = "))?;
            Some(line.trim_start_matches("name = ").trim_matches('"'))
        })
        .collect();
    assert!(benches.len() >= 5, "{benches:?}");
    let contributing = std::fs::read_to_string(root().join("CONTRIBUTING.md")).unwrap();
    let line = contributing
        .lines()
        .find(|line| line.contains("cargo bench --bench <"))
        .expect("CONTRIBUTING.md's benchmark line");
    let named = line.split('<').nth(1).unwrap().split('>').next().unwrap();
    let named: BTreeSet<&str> = named.split('|').collect();
    let missing: Vec<&&str> = benches.iter().filter(|b| !named.contains(**b)).collect();
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md lacks benchmarks {missing:?}"
    );
    let extra: Vec<&&str> = named.iter().filter(|n| !benches.contains(n)).collect();
    assert!(
        extra.is_empty(),
        "CONTRIBUTING.md names benchmarks Cargo.toml lacks: {extra:?}"
    );
}

/// The release workflow (cargo-dist's, RELEASING.md) passes actionlint.
#[test]
fn the_release_workflow_passes_actionlint() {
    let Some(actionlint) = support::peers::require("venv/bin/actionlint") else {
        return;
    };
    let workflow = root().join(".github/workflows/release.yml");
    let out = Command::new(&actionlint).arg(&workflow).output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}{}",
        workflow.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
