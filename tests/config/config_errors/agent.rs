//! The agent: of the eval file and of Agent files (and the step types of task files).

use super::Case;

pub(super) const CASES: &[Case] = &[
    (
        "file-agent-without-path",
        "file-agent-without-path.yaml",
        "config.agent.path",
        &["`type: file` agent needs `path`"],
    ),
    (
        "openai-agent-without-model",
        "openai-agent-without-model.yaml",
        "config.agent.model",
        &["builtin.openai-agent needs `model`"],
    ),
    (
        "unknown-agent-type",
        "unknown-agent-type.yaml",
        "config.agent.type",
        &[
            "unknown agent type `builtin.claude`",
            "did you mean builtin.claude-code?",
        ],
    ),
    (
        "llm-agent-unknown-provider",
        "llm-agent-unknown-provider.yaml",
        "config.agent.model",
        &[
            "unknown provider `antropic`",
            "openai, anthropic, gemini or google",
            "did you mean anthropic?",
        ],
    ),
    (
        "agent-unknown-builtin",
        "files/agent-unknown-builtin.yaml",
        "builtin.type",
        &[
            "unknown builtin agent `non-existent-agent`",
            "expected one of claude-code, llm-agent",
        ],
    ),
    (
        "task-step-two-types",
        "files/task-step-two-types.yaml",
        "spec.verify[0]",
        &["one step has one type, found script and http"],
    ),
    (
        "task-step-only-id",
        "files/task-step-only-id.yaml",
        "spec.setup[0]",
        &["missing the step type; expected one of script, http, llmJudge"],
    ),
    (
        "agent-template-unknown-field",
        "files/agent-unknown-field.yaml",
        "commands.runPrompt",
        &["unknown template field `.Promt`", "did you mean .Prompt?"],
    ),
    (
        "agent-template-unsupported-action",
        "files/agent-shell-action.yaml",
        "commands.runPrompt",
        &["unsupported template action"],
    ),
    (
        "agent-misspelled-key",
        "files/agent-misspelled-key.yaml",
        "commands.runPromt",
        &["unknown field", "did you mean runPrompt?"],
    ),
    (
        "agent-wrong-kind",
        "files/agent-wrong-kind.yaml",
        "kind",
        &["expected `kind: Agent`"],
    ),
];
