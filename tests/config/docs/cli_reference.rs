//! The command line's reference pages against the binary: every command and flag of
//! `docs/src/reference/cli.md` (and none it lacks), the exit codes, and the script agent's
//! directives in `mcpeval script-agent --help`.

use std::collections::BTreeSet;
use std::process::Command;

use super::{blocks, doc_files, root};

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
