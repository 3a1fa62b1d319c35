//! The eval file's structure: its keys, kind and name, its task sets and the files it names.

use super::Case;

pub(super) const CASES: &[Case] = &[
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
];
