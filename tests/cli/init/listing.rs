//! `mcpeval init` against a Python server that lists what a test says: tools without a
//! description or an input schema, names that are no file names, 200 tools in pages, none.

use super::*;

/// Runs init against the listing server with `spec`; its output.
fn init_listing(dir: &Path, spec: &Value) -> Output {
    let command = support::listing_server::command(dir, spec);
    init(dir, &["--command", &command])
}

#[test]
fn tools_without_description_or_schema_are_written_and_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let spec = json!({"name": "odd", "tools": [
        {"name": "bare", "inputSchema": {"type": "object"}},
        {"name": "schemaless", "description": "Has no input schema"},
        {"name": "typed", "description": "Mixed arguments", "inputSchema": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "count": {"type": "integer"},
                "either": {"type": ["string", "null"]},
                "$ref": {"type": "string"},
                "extra": {"type": "boolean"}
            },
            "required": ["mode", "count", "either", "$ref"]
        }}
    ]});
    let out = init_listing(dir.path(), &spec);
    assert_ok(&out);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "warning: the server gives no description: say in the prompt what it is for: \"bare\""
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: no inputSchema: the MCP spec requires one")
            && stderr.contains("\"schemaless\""),
        "{stderr}"
    );
    let root = dir.path().join("evals/odd");
    insta::assert_snapshot!("odd_eval_yaml", read(root.join("eval.yaml")));
    insta::assert_snapshot!("odd_task_bare_yaml", read(root.join("tasks/bare.yaml")));
    insta::assert_snapshot!(
        "odd_task_schemaless_yaml",
        read(root.join("tasks/schemaless.yaml"))
    );
    assert_eq!(
        validate(&root.join("eval.yaml"), &[]),
        ["odd::bare", "odd::schemaless", "odd::typed"]
    );
}

#[test]
fn tool_names_that_are_no_file_names_get_safe_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "get/weather",
        "a b",
        "Add",
        "add",
        "x::y",
        ".hidden",
        "über",
        "tab\there",
    ];
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "description": "odd name", "inputSchema": {"type": "object"}}))
        .collect();
    let out = init_listing(dir.path(), &json!({"name": "names", "tools": tools}));
    assert_ok(&out);
    let root = dir.path().join("evals/names");
    let files: Vec<String> = std::fs::read_dir(root.join("tasks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), names.len(), "{files:?}");
    for file in &files {
        let stem = file.strip_suffix(".yaml").unwrap();
        assert!(
            !stem.starts_with('.')
                && stem
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            "{file}"
        );
    }
    let lower: std::collections::HashSet<String> = files.iter().map(|f| f.to_lowercase()).collect();
    assert_eq!(
        lower.len(),
        files.len(),
        "no two files differ only in case: {files:?}"
    );
    let tests = validate(&root.join("eval.yaml"), &[]);
    assert_eq!(tests.len(), names.len(), "{tests:?}");
    for plain in [
        "names::get/weather",
        "names::a b",
        "names::Add",
        "names::add",
        "names::über",
    ] {
        assert!(tests.contains(&plain.to_owned()), "{plain} in {tests:?}");
    }
    // Each task set still selects its tool's task by the exact name.
    let eval = read(root.join("eval.yaml"));
    assert!(eval.contains("        tool: \"x::y\"\n"), "{eval}");
    assert!(
        eval.contains("        tool: \"tab\\u0009here\"\n"),
        "{eval}"
    );
}

#[test]
fn two_hundred_tools_in_pages_become_two_hundred_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<Value> = (0..200)
        .map(|i| {
            json!({"name": format!("tool_{i:03}"), "description": format!("Tool number {i}"),
                   "inputSchema": {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}})
        })
        .collect();
    let out = init_listing(
        dir.path(),
        &json!({"name": "many", "tools": tools, "page": 30}),
    );
    assert_ok(&out);
    assert!(
        text(&out.stdout).contains("wrote evals/many/tasks/: 200 task files, one per tool"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("warning: 200 tools, one task each"),
        "{}",
        text(&out.stderr)
    );
    let tests = validate(&dir.path().join("evals/many/eval.yaml"), &[]);
    assert_eq!(tests.len(), 200);
    assert_eq!(tests[0], "many::tool_000");
    assert_eq!(tests[199], "many::tool_199");
}

#[test]
fn a_server_without_tools_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = init_listing(dir.path(), &json!({"name": "empty", "tools": []}));
    assert_eq!(out.status.code(), Some(4));
    assert!(
        text(&out.stderr).contains("it lists no tools"),
        "{}",
        text(&out.stderr)
    );
}
