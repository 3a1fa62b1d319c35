//! Telling eval files from the files beside them without parsing them.

use std::sync::LazyLock;

use regex::Regex;

static EVAL_KIND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)^kind:\s*["']?Eval["']?\s*(#.*)?$|"kind"\s*:\s*"Eval""#)
        .expect("static regex")
});

/// Whether a file's text says `kind: Eval` (YAML, at the top level) or `"kind": "Eval"`
/// (JSON), without parsing it: how discovery tells eval files from the files beside them.
pub fn says_kind_eval(text: &str) -> bool {
    EVAL_KIND.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::says_kind_eval;

    #[test]
    fn eval_files_are_told_by_their_kind_line() {
        assert!(says_kind_eval("kind: Eval\nmetadata: {name: x}\n"));
        assert!(says_kind_eval(
            "metadata: {name: x}\nkind: \"Eval\"  # the eval\n"
        ));
        assert!(says_kind_eval(r#"{"kind": "Eval", "metadata": {}}"#));
        assert!(!says_kind_eval("kind: Task\n"));
        assert!(!says_kind_eval("  kind: Eval\n"), "only a top-level key");
        assert!(!says_kind_eval("kind: Evaluation\n"));
    }
}
