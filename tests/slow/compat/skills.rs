//! Skills: mounted in the agent's directory, asserted on its `Skill` tool calls.

use super::{fixture, only_result, text};
use std::process::Command;

#[test]
fn skills_are_mounted_in_the_agents_directory_and_asserted_on_its_tool_calls() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", &fixture("skills/eval.yaml").display().to_string()])
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(101),
        "{stdout}{}",
        text(&out.stderr)
    );
    for line in [
        "skillsLoaded (config.taskSets[0]):",
        "expected: loaded: skill=greeting",
        "actual:   no call of the agent's `Skill` tool",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    let result = only_result(output.path());
    // The skill file was there for the agent to read.
    assert_eq!(
        result["taskOutput"],
        "---\nname: greeting\ndescription: Greets a person by name in a friendly way."
    );
    assert_eq!(result["assertionResults"]["skillsLoaded"]["passed"], false);
    assert_eq!(
        result["assertionResults"]["skillsNotLoaded"]["passed"],
        true
    );
}

#[test]
fn skill_assertions_match_the_serialized_input_of_the_skill_tool() {
    use mcpeval::assert::check_skills;
    use mcpeval::config::{Assertions, SkillMatcher};
    use mcpeval::plan::AssertionSet;
    use mcpeval::trace::AgentToolCall;
    let set = |loaded: Vec<SkillMatcher>, not_loaded: Vec<SkillMatcher>| AssertionSet {
        task_set: "config.taskSets[0]".into(),
        assertions: Assertions {
            skills_loaded: loaded,
            skills_not_loaded: not_loaded,
            ..Assertions::default()
        }
        .into(),
        faults: Vec::new().into(),
        elicitation: None,
        sampling: None,
    };
    let calls = [
        AgentToolCall {
            name: "Skill".into(),
            input: serde_json::json!({"skill": "greeting"}),
        },
        AgentToolCall {
            name: "Bash".into(),
            input: serde_json::json!({"command": "echo \"farewell\""}),
        },
    ];
    let name = |n: &str| SkillMatcher::Name(n.into());
    let pattern = |p: &str| SkillMatcher::Pattern(regex::Regex::new(p).unwrap());
    assert!(
        check_skills(
            &[set(
                vec![name("greeting"), pattern("gree?t")],
                vec![name("farewell")]
            )],
            &calls,
            "Skill"
        )
        .is_empty()
    );
    let failures = check_skills(
        &[set(vec![name("greet")], vec![pattern("greeting")])],
        &calls,
        "Skill",
    );
    let text: Vec<String> = failures.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(
        text[0].contains("expected: loaded: skill=greet\n"),
        "{text:?}"
    );
    assert!(
        text[1].contains("expected: not loaded: skillPattern=greeting"),
        "{text:?}"
    );
    assert!(
        text[1].contains(r#"actual:   `Skill` called with {"skill":"greeting"}"#),
        "{text:?}"
    );
}
