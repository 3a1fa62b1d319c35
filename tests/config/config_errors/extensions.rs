//! Extensions: their declaration, the tasks that require them and their steps (and the
//! snapshot and schema-violations modes).

use super::Case;

pub(super) const CASES: &[Case] = &[
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
];
