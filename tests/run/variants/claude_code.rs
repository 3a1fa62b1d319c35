//! The Claude Code eval with variants (`evals/claude-code-variants`) and its recordings.

use std::path::Path;

use super::validate_eval;

/// The Claude Code eval with variants (`evals/claude-code-variants`, replayed by
/// `cargo test --test evals`): each variant has its own cassette, and what the variant
/// changes is in the requests recorded there, so a replay without it diverges.
#[test]
fn the_claude_code_variants_recorded_what_each_changes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/claude-code-variants");
    let cassette = |variant: &str| {
        let file = dir.join(format!(
            "cassettes/claude-code-variants__add@{variant}.json"
        ));
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"))
    };
    let (haiku, described) = (cassette("haiku"), cassette("described"));
    assert!(haiku.contains("\"model\": \"claude-haiku-4-5\""));
    assert!(!described.contains("claude-haiku-4-5"));
    let description = "Adds two numbers a and b and returns their sum as text.";
    assert!(described.contains(description) && !haiku.contains(description));
    let names = validate_eval(&dir.join("eval.yaml")).unwrap();
    assert_eq!(
        names,
        [
            "claude-code-variants::add@haiku",
            "claude-code-variants::add@described"
        ]
    );
    for variant in ["haiku", "described"] {
        let snapshot = dir.join(format!(
            "snapshots/claude-code-variants__add@{variant}.snap"
        ));
        assert!(snapshot.is_file(), "{snapshot:?}");
    }
}
