//! Normalisation of a trace for its snapshot: what changes from run to run is replaced by a
//! placeholder, and only that, so that two different values never render the same.
//!
//! | what varies                                             | becomes            |
//! |---------------------------------------------------------|--------------------|
//! | this run's directory (`<output>/runs/<stem>`)           | `[run]`            |
//! | the agent's work dir (`$TMPDIR/mcpeval-<run>-<pid>`)    | `[work]`           |
//! | the directory directly under a temporary root (`/tmp`, `/var/tmp`, macOS `/var/folders/…/T`, each also under `/private`) | `[tmp]`, `[tmp2]`, … in order of first appearance |
//! | timestamps, UUIDs, loopback ports                       | `[timestamp]`, `[uuid]`, `[port]` |
//!
//! The rest of a path stays: `/tmp/tmp.Ab12Cd/data/a.txt` is `[tmp]/data/a.txt`. The
//! numbering of temporary directories is kept over a whole trace (one [`Normalizer`]), so
//! one directory has one mask and two directories never share one.

use std::path::Path;
use std::sync::LazyLock;

use regex::{Captures, Regex};
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
    ]
});

/// A temporary root at the start of a path (not inside one: `/home/me/tmp/x` is no temporary
/// path, nor `[run]/tmp/x`; `file:///tmp/x` is), and the one directory under it.
static TEMPORARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?P<before>^|//|[^A-Za-z0-9._~/\]-])(?:/private)?(?P<root>/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/T)/(?P<dir>[^\s/"'`,;:)\]}>]+)"#,
    )
    .expect("static regex")
});

/// This run's own directories, masked by what they are.
#[derive(Debug, Clone, Default)]
pub struct RunDirs {
    /// The run directory, `[run]`.
    pub run: Option<String>,
    /// The agent's work dir, `[work]`.
    pub work: Option<String>,
}

impl RunDirs {
    /// The run directory and the agent's work dir of a run.
    pub fn new(run: &Path, work: &Path) -> Self {
        Self {
            run: Some(run.display().to_string()),
            work: Some(work.display().to_string()),
        }
    }

    /// `(path, mask)` for each directory and its other spelling on macOS (`/var/…` is
    /// `/private/var/…`), longest first.
    fn literals(&self) -> Vec<(String, &'static str)> {
        let mut literals = Vec::new();
        for (path, mask) in [(&self.run, "[run]"), (&self.work, "[work]")] {
            let Some(path) = path.as_deref().map(|p| p.trim_end_matches('/')) else {
                continue;
            };
            if path.is_empty() {
                continue;
            }
            literals.push((path.to_owned(), mask));
            if let Some(public) = path.strip_prefix("/private") {
                literals.push((public.to_owned(), mask));
            } else if path.starts_with("/var/") || path.starts_with("/tmp/") {
                literals.push((format!("/private{path}"), mask));
            }
        }
        literals.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        literals
    }
}

/// Normalises the strings of one trace: the run's directories, temporary directories
/// (numbered over the trace), timestamps, UUIDs and ports.
#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    /// This run's directories with their masks, longest first.
    literals: Vec<(String, &'static str)>,
    /// The temporary directories seen so far (root and name), in order: the first is
    /// `[tmp]`, the second `[tmp2]`, …
    temporary: Vec<String>,
}

impl Normalizer {
    /// A normaliser for one trace of the run with directories `dirs`.
    pub fn new(dirs: &RunDirs) -> Self {
        Self {
            literals: dirs.literals(),
            temporary: Vec::new(),
        }
    }

    /// `text` with what varies from run to run replaced.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = text.to_owned();
        for (path, mask) in &self.literals {
            out = replace_path(&out, path, mask);
        }
        let temporary = &mut self.temporary;
        out = TEMPORARY
            .replace_all(&out, |caps: &Captures| {
                let dir = format!("{}/{}", &caps["root"], &caps["dir"]);
                let index = match temporary.iter().position(|seen| *seen == dir) {
                    Some(index) => index,
                    None => {
                        temporary.push(dir);
                        temporary.len() - 1
                    }
                };
                let mask = match index {
                    0 => "[tmp]".to_owned(),
                    i => format!("[tmp{}]", i + 1),
                };
                format!("{}{mask}", &caps["before"])
            })
            .into_owned();
        for rule in RULES.iter() {
            out = rule
                .pattern
                .replace_all(&out, rule.replacement)
                .into_owned();
        }
        out
    }

    /// [`Normalizer::text`] applied to every string (and object key) inside `value`. Object
    /// entries are visited in the order of their keys, so the numbering of temporary
    /// directories does not depend on the order an agent wrote them in.
    pub fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by_key(|(k, _)| *k);
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (self.text(k), self.value(v)))
                        .collect(),
                )
            }
            other => other.clone(),
        }
    }
}

/// `text` with each occurrence of the directory `path` that is the whole directory (not the
/// start of a longer name: `/tmp/run1` is not in `/tmp/run10`) replaced by `mask`.
fn replace_path(text: &str, path: &str, mask: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(path) {
        let after = &rest[at + path.len()..];
        let whole = !after.starts_with(|c: char| c.is_alphanumeric() || "._-".contains(c));
        out.push_str(&rest[..at]);
        out.push_str(if whole { mask } else { path });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (input, expected) — regression cases; add one for every leak found and for every
    /// pair of values found rendering the same. Each input is normalised on its own.
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
        // A temporary directory: only its own name is masked, the path in it stays.
        ("/tmp/.tmpAbC123/work/file.txt", "[tmp]/work/file.txt"),
        ("/tmp/tmp.Xy7Qw2Ab9Z", "[tmp]"),
        ("read '/tmp/x/y' now", "read '[tmp]/y' now"),
        ("/var/tmp/tmpk3j_9a2b/out.log", "[tmp]/out.log"),
        ("/var/folders/ab/cd1234/T/.tmpXYZ/a", "[tmp]/a"),
        ("/private/var/folders/ab/cd1234/T/.tmpXYZ/a", "[tmp]/a"),
        ("/private/tmp/.tmpAbC123/a", "[tmp]/a"),
        ("file:///tmp/.tmpAbC123/a.md", "file://[tmp]/a.md"),
        ("--root=/tmp/.tmpAbC123/data", "--root=[tmp]/data"),
        (
            "cannot read /tmp/.tmpAbC123/a.txt: not found",
            "cannot read [tmp]/a.txt: not found",
        ),
        (r#"{"path":"/tmp/.tmpAbC123/a"}"#, r#"{"path":"[tmp]/a"}"#),
        // A 3f2b… directory is the temporary one, not a UUID after it.
        ("/tmp/3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b/a", "[tmp]/a"),
        // Two temporary directories in one value stay apart, and one keeps its mask.
        (
            "cp /tmp/tmp.AAAA/f /tmp/tmp.BBBB/f; ls /tmp/tmp.AAAA",
            "cp [tmp]/f [tmp2]/f; ls [tmp]",
        ),
        ("/tmp/.tmpA/x /var/tmp/.tmpA/x", "[tmp]/x [tmp2]/x"),
        // Not temporary: a root only counts at the start of a path.
        ("/home/user/project/file.txt", "/home/user/project/file.txt"),
        ("/home/user/tmp/notes/a.txt", "/home/user/tmp/notes/a.txt"),
        ("~/tmp/a", "~/tmp/a"),
        ("/tmp", "/tmp"),
        ("/tmpfiles/a", "/tmpfiles/a"),
        ("duration 2026-13", "duration 2026-13"),
    ];

    #[test]
    fn regression_table() {
        for (input, expected) in CASES {
            assert_eq!(
                Normalizer::default().text(input),
                *expected,
                "input: {input}"
            );
        }
    }

    /// The issue's case: a file in a directory and the directory itself, under one
    /// temporary directory, must not render the same (they both were `[tmp]`).
    #[test]
    fn a_file_and_its_directory_under_a_temporary_directory_stay_apart() {
        let mut normalizer = Normalizer::default();
        let file = normalizer.text("/tmp/.tmpQ1w2E3/data/a.txt");
        let dir = normalizer.text("/tmp/.tmpQ1w2E3/data");
        assert_eq!(
            (file.as_str(), dir.as_str()),
            ("[tmp]/data/a.txt", "[tmp]/data")
        );
    }

    #[test]
    fn temporary_directories_are_numbered_over_the_whole_trace() {
        let mut normalizer = Normalizer::default();
        assert_eq!(normalizer.text("/tmp/one/a"), "[tmp]/a");
        assert_eq!(normalizer.text("/tmp/two/a"), "[tmp2]/a");
        assert_eq!(normalizer.text("/private/tmp/one/b"), "[tmp]/b");
        assert_eq!(normalizer.text("/tmp/three"), "[tmp3]");
        // A new trace starts again.
        assert_eq!(Normalizer::default().text("/tmp/two/a"), "[tmp]/a");
    }

    #[test]
    fn run_and_work_dirs_have_masks_of_their_own() {
        let dirs = RunDirs::new(
            Path::new("/tmp/.tmpOut42/runs/e__t.run2"),
            Path::new("/tmp/mcpeval-e__t.run2-4242"),
        );
        let mut normalizer = Normalizer::new(&dirs);
        assert_eq!(
            normalizer.text("cat /tmp/.tmpOut42/runs/e__t.run2/mcp.json"),
            "cat [run]/mcp.json"
        );
        assert_eq!(
            normalizer.text("/tmp/mcpeval-e__t.run2-4242/a.txt"),
            "[work]/a.txt"
        );
        // The same name in the other directory renders differently.
        assert_ne!(
            normalizer.text("/tmp/.tmpOut42/runs/e__t.run2/a.txt"),
            normalizer.text("/tmp/mcpeval-e__t.run2-4242/a.txt")
        );
        // Another temporary directory of the run is still `[tmp]`, and a name that only
        // starts like the run dir is not the run dir.
        assert_eq!(normalizer.text("/tmp/.tmpOther/x"), "[tmp]/x");
        assert_eq!(
            normalizer.text("/tmp/mcpeval-e__t.run2-42420/x"),
            "[tmp2]/x"
        );
        // `[run]/tmp/…` is a folder in the run dir, not a temporary root.
        assert_eq!(
            normalizer.text("/tmp/.tmpOut42/runs/e__t.run2/tmp/x"),
            "[run]/tmp/x"
        );
    }

    #[test]
    fn run_dirs_are_found_under_both_spellings_on_macos() {
        let dirs = RunDirs::new(
            Path::new("/var/folders/ab/cd/T/.tmpOut/runs/e__t"),
            Path::new("/private/var/folders/ab/cd/T/mcpeval-e__t-1"),
        );
        let mut normalizer = Normalizer::new(&dirs);
        assert_eq!(
            normalizer.text("/private/var/folders/ab/cd/T/.tmpOut/runs/e__t/x"),
            "[run]/x"
        );
        assert_eq!(
            normalizer.text("/var/folders/ab/cd/T/mcpeval-e__t-1/y"),
            "[work]/y"
        );
    }

    #[test]
    fn the_numbering_does_not_depend_on_the_order_of_keys() {
        let a: Value = serde_json::from_str(r#"{"src":"/tmp/s/x","dst":"/tmp/d/x"}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"dst":"/tmp/d/x","src":"/tmp/s/x"}"#).unwrap();
        let (a, b) = (
            Normalizer::default().value(&a),
            Normalizer::default().value(&b),
        );
        assert_eq!(a, b);
        assert_eq!(a, serde_json::json!({"dst": "[tmp]/x", "src": "[tmp2]/x"}));
    }

    #[test]
    fn values_are_normalised_deeply_keys_included() {
        let value = serde_json::json!({"path": "/tmp/a/b", "n": 3, "list": ["127.0.0.1:80"], "/tmp/k/x": true});
        assert_eq!(
            Normalizer::default().value(&value),
            serde_json::json!({"path": "[tmp2]/b", "n": 3, "list": ["127.0.0.1:[port]"], "[tmp]/x": true})
        );
    }
}
