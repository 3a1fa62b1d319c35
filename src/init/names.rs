//! Names `mcpeval init` derives: the eval's directory and name from the server's, a task's
//! file name and test name from its tool's, the variable that hands a crate's binary to the
//! MCP config.

use std::collections::HashSet;

use crate::plumbing::file_stem::file_name_part;

/// Longest eval name taken from a server's name.
const MAX_SERVER_NAME: usize = 64;

/// `serverInfo.name` as a directory and eval name: `A-Z a-z 0-9 - _ .` kept, every run of
/// other characters one `-`, no `-` or `.` at either end (`mcp-servers/everything` →
/// `mcp-servers-everything`); `None` when nothing is left.
pub fn server_dir_name(name: &str) -> Option<String> {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.') {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed: String = out
        .trim_matches(|c| c == '-' || c == '.')
        .chars()
        .take(MAX_SERVER_NAME)
        .collect();
    let trimmed = trimmed.trim_end_matches(['-', '.']).to_owned();
    (!trimmed.is_empty()).then_some(trimmed)
}

/// Whether `name` (from `--name`) is usable as it is: what [`server_dir_name`] would leave
/// unchanged.
pub fn is_plain_server_name(name: &str) -> bool {
    server_dir_name(name).as_deref() == Some(name)
}

/// The file stems of the task files of these tools (in this order): a name made of
/// `A-Z a-z 0-9 - _ .` as written, any other escaped with a short hash of the exact name; a
/// name that differs from an earlier one only in case is hashed too (case-insensitive file
/// systems would give both one file).
pub fn task_file_stems<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = HashSet::new();
    names
        .into_iter()
        .map(|name| {
            let stem = file_name_part(name, false);
            let stem = if taken.contains(&stem.to_lowercase()) {
                file_name_part(name, true)
            } else {
                stem
            };
            taken.insert(stem.to_lowercase());
            stem
        })
        .collect()
}

/// Whether `name` can be a task's `metadata.name` as it is (see
/// `config::check::Checker::test_name_part`).
pub fn is_task_name(name: &str) -> bool {
    !name.is_empty()
        && !name.contains("::")
        && !name
            .chars()
            .any(|c| c.is_control() || (c.is_whitespace() && c != ' '))
        && name.trim() == name
        && !name.starts_with('.')
}

/// The variable that holds the path of the binary `bin`: `ACME_SERVER_BIN` for
/// `acme-server`.
pub fn bin_var(bin: &str) -> String {
    env_var_name(bin) + "_BIN"
}

/// `text` as an environment variable's name: upper case, every other character `_` (`_`
/// first if it would start with a digit).
pub fn env_var_name(text: &str) -> String {
    let mut var: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if var.starts_with(|c: char| c.is_ascii_digit()) {
        var.insert(0, '_');
    }
    var
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names_become_directory_names() {
        let cases = [
            ("mcpeval-demo-server", Some("mcpeval-demo-server")),
            ("mcp-servers/everything", Some("mcp-servers-everything")),
            ("@scope/My Server!", Some("scope-My-Server")),
            ("..hidden..", Some("hidden")),
            ("über", Some("ber")),
            ("///", None),
            ("", None),
        ];
        for (name, expected) in cases {
            assert_eq!(server_dir_name(name).as_deref(), expected, "{name:?}");
        }
        assert!(is_plain_server_name("acme"));
        assert!(!is_plain_server_name("a/b"));
        assert!(!is_plain_server_name(".acme"));
    }

    #[test]
    fn task_file_stems_stay_apart() {
        let stems = task_file_stems(["add", "get/weather", "get_weather", "Add", "a b"]);
        assert_eq!(stems[0], "add");
        assert!(stems[1].starts_with("get_weather-"), "{}", stems[1]);
        assert_eq!(stems[2], "get_weather");
        assert!(stems[3].starts_with("Add-"), "{}", stems[3]);
        assert!(stems[4].starts_with("a_b-"), "{}", stems[4]);
    }

    #[test]
    fn task_names_follow_the_test_name_rules() {
        assert!(is_task_name("get weather"));
        assert!(is_task_name("get/weather"));
        assert!(!is_task_name("a::b"));
        assert!(!is_task_name(".x"));
        assert!(!is_task_name("a\tb"));
        assert!(!is_task_name(" a"));
    }

    #[test]
    fn binary_variables_are_shell_names() {
        assert_eq!(bin_var("acme"), "ACME_BIN");
        assert_eq!(bin_var("acme-server"), "ACME_SERVER_BIN");
        assert_eq!(bin_var("9lives"), "_9LIVES_BIN");
    }
}
