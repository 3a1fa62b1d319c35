//! Normalisation of a trace for its snapshot: what changes from run to run (temporary
//! paths, ports, ids, timestamps) is replaced by a placeholder.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

struct Rule {
    pattern: Regex,
    replacement: &'static str,
}

fn rule(pattern: &str, replacement: &'static str) -> Rule {
    Rule {
        pattern: Regex::new(pattern).expect("static regex"),
        replacement,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?",
            "[timestamp]",
        ),
        rule(
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "[uuid]",
        ),
        rule(
            r"(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):\d{1,5}\b",
            "$1:[port]",
        ),
        rule(
            r"(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/T)(?:/[^\s/\x22']+)+",
            "[tmp]",
        ),
    ]
});

/// Replaces run-dependent parts of `text`. `run_paths` are this run's own directories
/// (replaced by `[run]`), checked first so that they read better than `[tmp]`.
pub fn normalize_text(text: &str, run_paths: &[String]) -> String {
    let mut out = text.to_owned();
    for path in run_paths.iter().filter(|p| !p.is_empty()) {
        out = out.replace(path.as_str(), "[run]");
    }
    for rule in RULES.iter() {
        out = rule
            .pattern
            .replace_all(&out, rule.replacement)
            .into_owned();
    }
    out
}

/// [`normalize_text`] applied to every string (and object key) inside `value`.
pub fn normalize_value(value: &Value, run_paths: &[String]) -> Value {
    match value {
        Value::String(s) => Value::String(normalize_text(s, run_paths)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| normalize_value(v, run_paths))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (normalize_text(k, run_paths), normalize_value(v, run_paths)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (input, expected) — regression cases; add one for every leak found.
    const CASES: &[(&str, &str)] = &[
        ("plain text stays", "plain text stays"),
        ("at 2026-11-22T05:07:07Z", "at [timestamp]"),
        ("at 2026-11-22 05:07:07.123+01:00 ok", "at [timestamp] ok"),
        (
            "id 3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b done",
            "id [uuid] done",
        ),
        ("http://127.0.0.1:43817/mcp", "http://127.0.0.1:[port]/mcp"),
        (
            "localhost:8080 and [::1]:9",
            "localhost:[port] and [::1]:[port]",
        ),
        ("version 1.2.3:45", "version 1.2.3:45"),
        ("/tmp/.tmpAbC123/work/file.txt", "[tmp]"),
        ("read '/tmp/x/y' now", "read '[tmp]' now"),
        ("/var/folders/ab/cd1234/T/.tmpXYZ/a", "[tmp]"),
        ("/home/user/project/file.txt", "/home/user/project/file.txt"),
        ("duration 2026-13", "duration 2026-13"),
    ];

    #[test]
    fn regression_table() {
        for (input, expected) in CASES {
            assert_eq!(normalize_text(input, &[]), *expected, "input: {input}");
        }
    }

    #[test]
    fn run_paths_become_run_before_the_generic_rules() {
        let run = vec!["/tmp/.tmpRun42".to_owned()];
        assert_eq!(
            normalize_text("cat /tmp/.tmpRun42/out.txt", &run),
            "cat [run]/out.txt"
        );
    }

    #[test]
    fn values_are_normalised_deeply_keys_included() {
        let value = serde_json::json!({"path": "/tmp/a/b", "n": 3, "list": ["127.0.0.1:80"], "/tmp/k/x": true});
        assert_eq!(
            normalize_value(&value, &[]),
            serde_json::json!({"path": "[tmp]", "n": 3, "list": ["127.0.0.1:[port]"], "[tmp]": true})
        );
    }
}
