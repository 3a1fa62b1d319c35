//! The MCP config: its servers, transports and allowed tools, and relative server commands.

use std::path::Path;

use mcpeval::config::{AllowedTools, Transport, load_eval};

use super::fixture;

#[test]
fn mcp_config_servers_transports_and_allowed_tools() {
    let eval = load_eval(&fixture("mcpchecker/eval.yaml")).unwrap();
    let servers = &eval.mcp.servers;
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["files", "kubernetes", "legacy"]
    );
    assert_eq!(servers["kubernetes"].allowed_tools, AllowedTools::All);
    assert_eq!(
        servers["files"].allowed_tools,
        AllowedTools::Only(vec!["read_file".into(), "list_directory".into()])
    );
    assert!(servers["legacy"].disabled);
    assert_eq!(eval.mcp.enabled().count(), 2);
    let Transport::Stdio {
        command, args, env, ..
    } = &servers["files"].transport
    else {
        panic!()
    };
    assert_eq!(command, "npx");
    assert_eq!(args[1], "@modelcontextprotocol/server-filesystem");
    assert_eq!(env["LOG_LEVEL"], "debug");
}

#[test]
fn a_relative_server_command_resolves_against_the_mcp_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("configs/mcp.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "mcpServers:\n  own: {command: ../bin/server}\n  npx: {command: npx}\n",
    )
    .unwrap();
    let mcp = mcpeval::config::load_mcp_config(&config).unwrap();
    let Transport::Stdio { command, .. } = &mcp.servers["own"].transport else {
        panic!()
    };
    assert_eq!(Path::new(command), dir.path().join("configs/../bin/server"));
    let Transport::Stdio { command, .. } = &mcp.servers["npx"].transport else {
        panic!()
    };
    assert_eq!(command, "npx");
}
