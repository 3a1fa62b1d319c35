//! Assertions: patterns, `arguments:` patterns, counts, servers and skills.

use super::Case;

pub(super) const CASES: &[Case] = &[
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
];
