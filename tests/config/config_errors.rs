//! Every broken file under `tests/fixtures/invalid/` is rejected with an error that names the
//! file, the line and column, the key path and what was expected.

use std::path::{Path, PathBuf};

use mcpeval::config::ConfigError;
use mcpeval::plan::validate_eval;

/// (eval file under tests/fixtures/invalid, file the error is in, key path, words of the message)
const CASES: &[(&str, &str, &str, &[&str])] = &[
    // The eval file's structure.
    (
        "unknown-key-suggestion",
        "unknown-key-suggestion.yaml",
        "config.taskSets[0].assertions.toolsUsed[0].toolPatern",
        &["unknown field", "did you mean toolPattern?"],
    ),
    (
        "unknown-top-level-key",
        "unknown-top-level-key.yaml",
        "metdata",
        &["unknown field", "did you mean metadata?"],
    ),
    (
        "wrong-kind",
        "wrong-kind.yaml",
        "kind",
        &["expected `kind: Eval`", "found `Task`"],
    ),
    (
        "missing-metadata-name",
        "missing-metadata-name.yaml",
        "metadata.name",
        &["missing required field"],
    ),
    (
        "name-with-separator",
        "name-with-separator.yaml",
        "metadata.name",
        &["is part of a test name: no `::`"],
    ),
    (
        "path-and-glob",
        "path-and-glob.yaml",
        "config.taskSets[0]",
        &["both `path` and `glob`", "exactly one"],
    ),
    (
        "neither-path-nor-glob",
        "neither-path-nor-glob.yaml",
        "config.taskSets[0]",
        &["neither `path` nor `glob`", "exactly one"],
    ),
    (
        "path-not-found",
        "path-not-found.yaml",
        "config.taskSets[0].path",
        &["file not found", "files/no-such-task.yaml"],
    ),
    (
        "glob-matches-nothing",
        "glob-matches-nothing.yaml",
        "config.taskSets[0].glob",
        &["matches no task file"],
    ),
    (
        "glob-matches-no-task-kind",
        "glob-matches-no-task-kind.yaml",
        "config.taskSets[0].glob",
        &["matches no task file", "kind: Task"],
    ),
    (
        "path-is-not-a-task",
        "path-is-not-a-task.yaml",
        "config.taskSets[0].path",
        &["is not a task file"],
    ),
    (
        "empty-task-sets",
        "empty-task-sets.yaml",
        "config.taskSets",
        &["at least one task set"],
    ),
    (
        "missing-mcp-config-file",
        "missing-mcp-config-file.yaml",
        "config.mcpConfigFile",
        &["file not found", "absent-mcp.yaml"],
    ),
    (
        "malformed-yaml",
        "malformed-yaml.yaml",
        "",
        &["invalid YAML", "flow mapping"],
    ),
    (
        "duplicate-key",
        "duplicate-key.yaml",
        "config.mcpConfigFile",
        &["duplicate key `mcpConfigFile`"],
    ),
    (
        "unsupported-mcpchecker-key",
        "unsupported-mcpchecker-key.yaml",
        "config.sources",
        &["not supported by mcpeval yet"],
    ),
    // Extensions.
    (
        "extension-without-package",
        "extension-without-package.yaml",
        "config.extensions.kubernetes.package",
        &["missing required field"],
    ),
    (
        "extension-bad-package",
        "extension-bad-package.yaml",
        "config.extensions.kubernetes.package",
        &[
            "unknown package reference `kubernetes-extension`",
            "github.com/owner/repo[@version]",
        ],
    ),
    (
        "extension-misspelled-key",
        "extension-misspelled-key.yaml",
        "config.extensions.kubernetes.pakage",
        &["unknown field", "did you mean package?"],
    ),
    (
        "extension-bad-timeout",
        "extension-bad-timeout.yaml",
        "config.extensions.kubernetes.timeout",
        &["invalid duration \"soon\""],
    ),
    (
        "requires-unknown-extension",
        "files/task-requires-unknown.yaml",
        "spec.requires[0].extension",
        &["unknown extension `kubernets`", "did you mean kubernetes?"],
    ),
    (
        "requires-mcp-server",
        "files/task-requires-mcp-server.yaml",
        "spec.requires[0].mcpServer",
        &["not supported by mcpeval yet"],
    ),
    (
        "extension-step-not-required",
        "files/task-step-not-required.yaml",
        "spec.setup[0].k8s.create",
        &["`k8s` is not an extension this task requires"],
    ),
    (
        "extension-step-not-a-mapping",
        "files/task-step-not-a-mapping.yaml",
        "spec.setup[0].k8s.create",
        &["expected a mapping: the operation's arguments"],
    ),
    (
        "unknown-snapshot-mode",
        "unknown-snapshot-mode.yaml",
        "config.snapshot",
        &["unknown snapshot mode `strikt`", "did you mean strict?"],
    ),
    (
        "unknown-schema-violations-mode",
        "unknown-schema-violations-mode.yaml",
        "config.taskSets[0].schemaViolations",
        &[
            "unknown value `fial`; expected warn or fail",
            "did you mean fail?",
        ],
    ),
    // The agent.
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
    // Assertions.
    (
        "invalid-tool-pattern",
        "invalid-tool-pattern.yaml",
        "config.taskSets[0].assertions.toolsUsed[0].toolPattern",
        &["invalid regular expression \"pods_(\"", "unclosed group"],
    ),
    // `arguments:` patterns of assertion entries.
    (
        "arguments-unknown-operator",
        "arguments-unknown-operator.yaml",
        "config.taskSets[0].assertions.toolsUsed[1].arguments.name.$matc",
        &["unknown operator; expected $match or $type; did you mean $match?"],
    ),
    (
        "arguments-invalid-regex",
        "arguments-invalid-regex.yaml",
        "config.taskSets[0].assertions.toolsNotUsed[0].arguments.labels[0].app.$match",
        &["invalid regular expression \"web(\"", "unclosed group"],
    ),
    (
        "arguments-operator-with-other-keys",
        "arguments-operator-with-other-keys.yaml",
        "config.taskSets[0].assertions.callOrder[0].arguments.name",
        &["an operator must be the only key of its mapping; found `$match`, `$type`"],
    ),
    (
        "arguments-unknown-type",
        "arguments-unknown-type.yaml",
        "config.taskSets[0].assertions.promptsUsed[0].arguments.lang.$type",
        &[
            "unknown type \"text\"",
            "expected one of string, number, integer, boolean, array, object, null",
        ],
    ),
    (
        "arguments-on-resource",
        "arguments-on-resource.yaml",
        "config.taskSets[0].assertions.resourcesRead[0].arguments",
        &["a resource read has no arguments"],
    ),
    (
        "arguments-not-a-mapping",
        "arguments-not-a-mapping.yaml",
        "config.taskSets[0].assertions.requireAny[0].arguments",
        &["expected a mapping of argument names to patterns, found [\"default\"]"],
    ),
    (
        "negative-max-tool-errors",
        "negative-max-tool-errors.yaml",
        "config.taskSets[0].assertions.maxToolErrors",
        &["must be 0 or more, found -1"],
    ),
    (
        "negative-max-tool-result-tokens",
        "negative-max-tool-result-tokens.yaml",
        "config.taskSets[0].assertions.maxToolResultTokens",
        &["must be 0 or more, found -5"],
    ),
    (
        "text-max-tool-definition-tokens",
        "text-max-tool-definition-tokens.yaml",
        "config.taskSets[0].assertions.maxToolDefinitionTokens",
        &["invalid i64"],
    ),
    (
        "invalid-uri-pattern",
        "invalid-uri-pattern.yaml",
        "config.taskSets[0].assertions.resourcesNotRead[0].uriPattern",
        &["invalid regular expression", "unclosed character class"],
    ),
    (
        "invalid-prompt-pattern",
        "invalid-prompt-pattern.yaml",
        "config.taskSets[0].assertions.promptsUsed[0].promptPattern",
        &["invalid regular expression", "repetition operator"],
    ),
    (
        "call-order-unknown-type",
        "call-order-unknown-type.yaml",
        "config.taskSets[0].assertions.callOrder[1].type",
        &["unknown call type `tul`", "tool, resource, prompt"],
    ),
    (
        "min-greater-than-max",
        "min-greater-than-max.yaml",
        "config.taskSets[0].assertions.minToolCalls",
        &["minToolCalls (5) is greater than maxToolCalls (2)"],
    ),
    (
        "negative-count",
        "negative-count.yaml",
        "config.taskSets[0].assertions.maxToolCalls",
        &["must be 0 or more", "-1"],
    ),
    (
        "unknown-server",
        "unknown-server.yaml",
        "config.taskSets[0].assertions.toolsUsed[0].server",
        &["unknown MCP server `kubernets`", "did you mean kubernetes?"],
    ),
    (
        "after-fault-empty",
        "after-fault-empty.yaml",
        "config.taskSets[0].assertions.afterFault",
        &["expected `retried`, `toolsUsed` or both"],
    ),
    (
        "after-fault-unknown-key",
        "after-fault-unknown-key.yaml",
        "config.taskSets[0].assertions.afterFault.retryed",
        &["unknown field", "did you mean retried?"],
    ),
    (
        "after-fault-unknown-server",
        "after-fault-unknown-server.yaml",
        "config.taskSets[0].assertions.afterFault.toolsUsed[0].server",
        &["unknown MCP server `kubernets`", "did you mean kubernetes?"],
    ),
    (
        "unknown-server-in-call-order",
        "unknown-server-in-call-order.yaml",
        "config.taskSets[0].assertions.callOrder[0].server",
        &["unknown MCP server `doc`", "did you mean docs?"],
    ),
    (
        "wrong-key-for-kind",
        "wrong-key-for-kind.yaml",
        "config.taskSets[0].assertions.resourcesRead[0].tool",
        &["does not belong in a resource entry", "uri or uriPattern"],
    ),
    (
        "skill-assertion-without-agent-skills",
        "skill-assertion-without-agent-skills.yaml",
        "config.taskSets[0].assertions.skillsLoaded",
        &["has no `skills: {mountPath, toolName}`"],
    ),
    (
        "skill-mount-path-escapes",
        "files/agent-skills-escape.yaml",
        "skills.mountPath",
        &["`../outside` must be a relative path inside the agent's working directory"],
    ),
    // The MCP config.
    (
        "mcp-server-without-command-or-url",
        "files/mcp-no-command-no-url.yaml",
        "mcpServers.kubernetes",
        &["neither `command` nor `url`"],
    ),
    (
        "mcp-missing-env-var",
        "files/mcp-missing-var.yaml",
        "mcpServers.kubernetes.headers.Authorization",
        &["`MCPEVAL_TEST_UNSET_TOKEN` is not set"],
    ),
    (
        "mcp-misspelled-key-json",
        "files/mcp-misspelled.json",
        "mcpServers.kubernetes.comand",
        &["unknown field", "did you mean command?"],
    ),
    (
        "mcp-sse-transport",
        "files/mcp-sse.yaml",
        "mcpServers.kubernetes.type",
        &["`type: sse`", "not supported yet"],
    ),
    // Task files.
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

fn invalid_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid")
}

fn describe(errors: &[ConfigError]) -> String {
    errors.iter().map(|e| format!("  {e}\n")).collect()
}

#[test]
fn every_broken_file_gets_a_precise_error() {
    let dir = invalid_dir();
    let mut failures = Vec::new();
    for (case, file, key_path, words) in CASES {
        let eval = dir.join(format!("{case}.yaml"));
        let errors = match validate_eval(&eval) {
            Ok(names) => {
                failures.push(format!("{case}: expected an error, got tests {names:?}"));
                continue;
            }
            Err(errors) => errors.0,
        };
        let expected_file = dir.join(file);
        let found = errors.iter().find(|e| {
            e.file == expected_file
                && e.key_path == *key_path
                && words.iter().all(|w| e.message.contains(w))
        });
        match found {
            None => failures.push(format!(
                "{case}: no error in {file} at `{key_path}` containing {words:?}; got:\n{}",
                describe(&errors)
            )),
            Some(error) if error.location.is_none() => {
                failures.push(format!("{case}: the error has no line and column: {error}"))
            }
            Some(error) => {
                let shown = error.to_string();
                if !shown.starts_with(&expected_file.display().to_string()) {
                    failures.push(format!(
                        "{case}: the message does not start with the file: {shown}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn an_unknown_builtin_is_one_error_not_also_a_missing_run_prompt() {
    let errors = validate_eval(&invalid_dir().join("agent-unknown-builtin.yaml"))
        .unwrap_err()
        .0;
    assert_eq!(errors.len(), 1, "{}", describe(&errors));
}

#[test]
fn every_invalid_fixture_has_a_case_and_there_are_at_least_thirty() {
    let mut on_disk: Vec<String> = std::fs::read_dir(invalid_dir())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".yaml").map(str::to_owned)
        })
        .collect();
    on_disk.sort();
    let mut in_table: Vec<String> = CASES.iter().map(|c| c.0.to_owned()).collect();
    in_table.sort();
    assert_eq!(on_disk, in_table);
    assert!(CASES.len() >= 30, "only {} cases", CASES.len());
}

#[test]
fn a_file_with_several_problems_reports_all_of_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcp.yaml"),
        "mcpServers: {k: {command: srv}}\n",
    )
    .unwrap();
    let eval = dir.path().join("eval.yaml");
    std::fs::write(
        &eval,
        "kind: Eval\nmetadata: {name: e}\nconfig:\n  agent: {type: builtin.openai-agent}\n  mcpConfigFile: mcp.yaml\n  taskSets:\n    - {path: nope.yaml, assertions: {maxToolCalls: -2, toolsUsed: [{server: x}]}}\n",
    )
    .unwrap();
    let errors = validate_eval(&eval).unwrap_err().0;
    let paths: Vec<&str> = errors.iter().map(|e| e.key_path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "config.agent.model",
            "config.taskSets[0].path",
            "config.taskSets[0].assertions.toolsUsed[0].server",
            "config.taskSets[0].assertions.maxToolCalls",
        ],
        "{}",
        describe(&errors)
    );
}

#[test]
fn arbitrary_garbage_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        "",
        "---",
        "[]",
        "42",
        "kind: Eval",
        "kind: [",
        "\u{0}\u{1}",
        "kind: Eval\nmetadata: 5\nconfig: x",
        "&a [*a]",
        "kind: Eval\nconfig:\n  taskSets: *nope",
        "{{{{",
        "kind: Eval\nmetadata: {name: a}\nconfig: {taskSets: [{glob: '[']}]}",
        "key: !!binary notbase64",
        "- - - -",
        "? [a, b]\n: c",
    ];
    for (i, input) in inputs.iter().enumerate() {
        let eval = dir.path().join(format!("garbage-{i}.yaml"));
        std::fs::write(&eval, input).unwrap();
        let result = std::panic::catch_unwind(|| validate_eval(&eval));
        match result {
            Ok(Err(errors)) => assert!(!errors.0.is_empty(), "{input:?}"),
            Ok(Ok(names)) => panic!("{input:?} was accepted: {names:?}"),
            Err(_) => panic!("{input:?} panicked"),
        }
    }
}
