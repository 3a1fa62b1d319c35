//! The MCP config: servers, transports, variables.

use super::Case;

pub(super) const CASES: &[Case] = &[
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
];
