//! `mcpeval init` against the reference servers installed under `.peers/`: the everything
//! server over stdio and streamable HTTP, and the filesystem server.

use super::*;

#[test]
fn the_everything_server_gets_one_task_per_tool() {
    let Some(binary) = support::everything::binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let command = format!("{} stdio", binary.display());
    let out = init(dir.path(), &["--command", &command, "--name", "everything"]);
    assert_ok(&out);
    let root = dir.path().join("evals/everything");
    insta::assert_snapshot!("everything_eval_yaml", read(root.join("eval.yaml")));
    insta::assert_snapshot!(
        "everything_task_get_sum_yaml",
        read(root.join("tasks/get-sum.yaml"))
    );
    let readme = read(root.join("README.md"));
    assert!(
        readme.contains("- Prompts (assert with `promptsUsed`): `simple-prompt`"),
        "{readme}"
    );
    let tests = validate(&root.join("eval.yaml"), &[]);
    assert_eq!(tests.len(), 13, "{tests:?}");
    assert!(tests.contains(&"everything::get-sum".to_owned()));
}

#[test]
fn the_everything_server_over_http_is_written_with_its_url() {
    let Some(binary) = support::everything::binary() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(support::everything::HttpEverything::start(&binary));
    let dir = tempfile::tempdir().unwrap();
    let out = init(dir.path(), &["--url", &server.url]);
    assert_ok(&out);
    let root = dir.path().join("evals/mcp-servers-everything");
    let config = read(root.join("mcp-config.yaml"));
    assert!(
        config.contains(&format!("    url: \"{}\"\n", server.url)),
        "{config}"
    );
    assert!(config.contains("must be listening"), "{config}");
    assert_eq!(validate(&root.join("eval.yaml"), &[]).len(), 13);
}

#[test]
fn the_filesystem_server_gets_one_task_per_tool() {
    let Some(binary) = require("node_modules/.bin/mcp-server-filesystem") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let allowed = dir.path().join("allowed");
    std::fs::create_dir(&allowed).unwrap();
    let command = format!("{} {}", binary.display(), allowed.display());
    let out = init(dir.path(), &["--command", &command]);
    assert_ok(&out);
    let root = dir.path().join("evals/secure-filesystem-server");
    insta::assert_snapshot!("filesystem_eval_yaml", read(root.join("eval.yaml")));
    let config = read(root.join("mcp-config.yaml"));
    assert!(config.contains(&allowed.display().to_string()), "{config}");
    let tests = validate(&root.join("eval.yaml"), &[]);
    assert!(
        tests.contains(&"secure-filesystem-server::read_text_file".to_owned()),
        "{tests:?}"
    );
    let listed = listed(&root.join("eval.yaml"), &[]);
    assert_eq!(listed.len(), tests.len());
}
