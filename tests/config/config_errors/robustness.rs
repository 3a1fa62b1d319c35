//! Files the tests write: every problem of one file is reported, and garbage never panics.

use mcpeval::plan::validate_eval;

use super::describe;

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
