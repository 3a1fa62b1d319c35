//! Without `mcpConfigFile`, the MCP server from the environment (MCP_COMMAND, MCP_URL, …),
//! as mcpchecker builds it.

use super::{TASK, files, fixture, passed, text};
use std::process::Command;

/// Loads `eval_text` (beside a task file) with `vars` as the whole environment.
fn load_with_env(
    eval_text: &str,
    vars: &[(&str, &str)],
) -> Result<mcpeval::config::Eval, mcpeval::config::ConfigErrors> {
    let dir = files(&[TASK, ("eval.yaml", eval_text)]);
    let lookup = |name: &str| {
        vars.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    };
    mcpeval::config::load_eval_with(&dir.path().join("eval.yaml"), &lookup)
}

const NO_MCP_FILE: &str = "kind: Eval\nmetadata: {name: e}\nconfig:\n  agent: {type: builtin.claude-code}\n  taskSets:\n    - path: task.yaml\n";

#[test]
fn without_mcp_config_file_the_environment_describes_the_server() {
    use mcpeval::config::Transport;
    let server = |vars: &[(&str, &str)]| {
        let eval = load_with_env(NO_MCP_FILE, vars).unwrap_or_else(|e| panic!("{vars:?}: {e}"));
        assert_eq!(eval.mcp.servers.len(), 1);
        eval.mcp.servers.into_values().next().unwrap()
    };
    let stdio = server(&[
        ("MCP_COMMAND", "srv"),
        ("MCP_ARGS", "--a, b"),
        ("MCP_ENV", r#"{"TOKEN": "x"}"#),
        ("MCP_URL", "http://ignored/mcp"),
    ]);
    assert_eq!(stdio.name, "default");
    let Transport::Stdio {
        command, args, env, ..
    } = stdio.transport
    else {
        panic!("{:?}", stdio.transport)
    };
    assert_eq!(
        (command.as_str(), args),
        ("srv", vec!["--a".to_owned(), "b".to_owned()])
    );
    assert_eq!(env["TOKEN"], "x");
    let json_args = server(&[("MCP_COMMAND", "srv"), ("MCP_ARGS", r#"["x, y", "z"]"#)]);
    assert!(matches!(json_args.transport, Transport::Stdio { args, .. } if args == ["x, y", "z"]));
    for (vars, expected) in [
        (
            &[("MCP_URL", "https://h.example/mcp")][..],
            "https://h.example/mcp",
        ),
        (&[("MCP_PORT", "8080")][..], "http://localhost:8080/mcp"),
        (
            &[("MCP_HOST", "h"), ("MCP_PORT", "9"), ("MCP_PATH", "api")][..],
            "http://h:9/api",
        ),
    ] {
        let http = server(
            &[
                vars,
                &[
                    ("MCP_SERVER_NAME", "k8s"),
                    ("MCP_HEADERS", r#"{"X-Key": "v"}"#),
                ],
            ]
            .concat(),
        );
        assert_eq!(http.name, "k8s");
        let Transport::Http { url, headers } = http.transport else {
            panic!("{:?}", http.transport)
        };
        assert_eq!(url, expected);
        assert_eq!(headers["X-Key"], "v");
    }
}

#[test]
fn without_mcp_config_file_or_environment_the_error_is_mcpcheckers() {
    let errors = load_with_env(NO_MCP_FILE, &[]).unwrap_err().0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key_path, "config.mcpConfigFile");
    assert!(
        errors[0]
            .message
            .contains("at least one of MCP config or skills must be configured"),
        "{}",
        errors[0]
    );
    let errors = load_with_env(NO_MCP_FILE, &[("MCP_URL", "x"), ("MCP_HEADERS", "[1]")])
        .unwrap_err()
        .0;
    assert!(
        errors[0]
            .message
            .contains("MCP_HEADERS must be a JSON object"),
        "{}",
        errors[0]
    );
}

#[test]
fn an_eval_without_mcp_config_file_runs_the_server_the_environment_names() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", &fixture("env-mcp/eval.yaml").display().to_string()])
        .env("MCP_COMMAND", env!("CARGO_BIN_EXE_mcpeval"))
        .env("MCP_ARGS", "demo-server")
        .env("MCP_SERVER_NAME", "demo")
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(passed(&stdout, "env-mcp::echo"), "{stdout}");
}
