//! The docs' examples: every whole-file YAML or JSON example loads, and every `mcpeval …`
//! command line of a shell block parses.

use std::process::Command;

use mcpeval::config::{
    TaskContext, load_agent_file, load_eval_with, load_mcp_config_with, load_task,
};

use super::{Block, all_blocks};

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
