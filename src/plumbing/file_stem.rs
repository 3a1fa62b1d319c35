//! The file name of a test: the stem of its snapshot (`<stem>.snap`), its results file
//! (`results/<stem>.json`), its run directory and its cassette.
//!
//! Two different test names never share a stem. A name made of `A-Z a-z 0-9 - _ .` is used
//! as written (`demo__lookup-user`), so the stems of plain names stay what they always were.
//! Any other name is written with `_` for each other character and a short hash of the
//! exact name appended (`spaces__create_pod_inline-b0f72189`), which keeps `a/b` and `a_b`
//! apart. So does everything that could make a plain stem ambiguous: an eval name with `__`
//! (the separator), a name ending in `.run<N>` (the suffix of repeated runs), a leading `.`
//! (a hidden file). The plan also refuses two tests of one eval with one stem, so a hash
//! collision is an error, never a lost result.

use sha2::{Digest, Sha256};

/// Longest part of a stem taken from one name, so that every file name stays well under
/// the 255 bytes file systems allow (`<stem>.run<N>.json`, `.<stem>.json.<pid>.tmp`).
const MAX_PART: usize = 100;

/// The stem of the test `<eval>::<task>`: `<eval>__<task>`, each part as described above.
pub fn file_stem(eval: &str, task: &str) -> String {
    format!("{}__{}", part(eval, eval.contains("__")), part(task, false))
}

/// The stem of the test `<eval>::<task>@<variant>`: `<eval>__<task>@<variant>`, each part as
/// described above (`<eval>__<task>` without a variant). A variant name is made of
/// `A-Z a-z 0-9 . _ -`, so `@` never occurs in an escaped part and the stem stays unique.
pub fn variant_file_stem(eval: &str, task: &str, variant: Option<&str>) -> String {
    let stem = file_stem(eval, task);
    match variant {
        Some(variant) => format!("{stem}@{}", part(variant, false)),
        None => stem,
    }
}

/// One name as a file name of its own (`mcpeval init`'s task files): as written when it is
/// made of `A-Z a-z 0-9 - _ .` (no `.` at the start), else escaped and hashed; `hashed`
/// forces the escaped form (a name that differs from another only in case).
#[cfg(feature = "cli")]
pub(crate) fn file_name_part(name: &str, hashed: bool) -> String {
    part(name, hashed)
}

/// One name as part of a stem: as written when that is unambiguous, else escaped and
/// hashed.
fn part(name: &str, ambiguous: bool) -> String {
    if !ambiguous && is_plain(name) {
        return name.to_owned();
    }
    let escaped: String = name
        .chars()
        .enumerate()
        .map(|(index, c)| {
            if is_plain_char(c) && !(index == 0 && c == '.') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_PART)
        .collect();
    let digest = Sha256::digest(name.as_bytes());
    let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{escaped}-{hash}")
}

fn is_plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PART
        && name.chars().all(is_plain_char)
        && !name.starts_with('.')
        && !ends_like_a_run(name)
}

fn is_plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// `….run2`: the suffix the second run of a repeated task gets.
fn ends_like_a_run(name: &str) -> bool {
    name.rsplit_once(".run")
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn plain_names_are_kept_as_written() {
        assert_eq!(file_stem("demo", "lookup-user"), "demo__lookup-user");
        assert_eq!(file_stem("k8s.v2", "a_b"), "k8s.v2__a_b");
        assert_eq!(file_stem("e", "t__x"), "e__t__x");
    }

    #[test]
    fn names_that_escaping_would_merge_stay_apart() {
        let slash = file_stem("e", "a/b");
        assert!(slash.starts_with("e__a_b-"), "{slash}");
        assert_ne!(slash, file_stem("e", "a_b"));
        assert_ne!(file_stem("e", "a b"), file_stem("e", "a/b"));
        assert_ne!(file_stem("e", "é"), file_stem("e", "è"));
        // The README's example.
        assert_eq!(
            file_stem("k8s", "create pod inline"),
            "k8s__create_pod_inline-b0f72189"
        );
    }

    #[test]
    fn separators_and_run_suffixes_cannot_be_forged() {
        assert_ne!(file_stem("a__b", "c"), file_stem("a", "b__c"));
        assert_ne!(
            file_stem("e", "t.run2"),
            format!("{}.run2", file_stem("e", "t"))
        );
        assert_eq!(file_stem("e", "t.running"), "e__t.running");
    }

    #[test]
    fn no_stem_is_hidden_or_leaves_its_directory() {
        for (eval, task) in [("../../x", "t"), (".", "t"), ("..", ".."), ("e", "../x")] {
            let stem = file_stem(eval, task);
            assert!(!stem.starts_with('.'), "{stem}");
            assert!(!stem.contains('/') && !stem.contains('\\'), "{stem}");
        }
    }

    #[test]
    fn long_names_give_short_distinct_stems() {
        let long = "x".repeat(400);
        let longer = format!("{long}y");
        assert!(file_stem("e", &long).len() < 120);
        assert_ne!(file_stem("e", &long), file_stem("e", &longer));
    }
}
