//! Task files: prompts, names, steps, versions, durations and scripts.

use super::Case;

pub(super) const CASES: &[Case] = &[
    (
        "task-without-prompt",
        "files/task-no-prompt.yaml",
        "steps.prompt",
        &["has no prompt"],
    ),
    (
        "prompt-file-missing",
        "files/task-prompt-file-missing.yaml",
        "spec.prompt.file",
        &["file not found", "prompts/missing.md"],
    ),
    (
        "duplicate-task-names",
        "files/dupes/b.yaml",
        "metadata.name",
        &["duplicate task name", "broken::same-name", "dupes/a.yaml"],
    ),
    (
        "task-unknown-step-type",
        "files/task-bad-step.yaml",
        "spec.verify[0]",
        &["unknown value `scirpt`", "did you mean script?"],
    ),
    (
        "task-unknown-api-version",
        "files/task-bad-version.yaml",
        "apiVersion",
        &["unknown task version `mcpchecker/v2`"],
    ),
    (
        "judge-step-without-judge",
        "files/task-judge.yaml",
        "spec.verify[0].llmJudge",
        &["needs an LLM judge", "config.llmJudge"],
    ),
    (
        "task-invalid-duration",
        "files/task-bad-duration.yaml",
        "spec.limits.timeout",
        &["invalid duration \"soon\""],
    ),
    (
        "task-script-file-missing",
        "files/task-script-missing.yaml",
        "steps.setup.file",
        &["file not found", "scripts/setup.sh"],
    ),
    (
        "task-misspelled-metadata",
        "files/task-misspelled-metadata.yaml",
        "metadata.dificulty",
        &["unknown field", "did you mean difficulty?"],
    ),
    (
        "task-spec-without-api-version",
        "files/task-spec-without-version.yaml",
        "spec",
        &["add `apiVersion: mcpchecker/v1alpha2`"],
    ),
    (
        "task-file-malformed",
        "files/broken-tasks/broken.yaml",
        "",
        &["invalid YAML", "unclosed bracket"],
    ),
    (
        "task-http-invalid-regex",
        "files/task-http-bad-regex.yaml",
        "spec.verify[0].http.expect.body.match",
        &["invalid regular expression \"ok(\""],
    ),
];
