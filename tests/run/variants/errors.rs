//! A bad variant is a load error at its key path.

use crate::support::eval_run::AGENT;

use super::{MCP, task, validate_eval, write};

/// (variants YAML, key path, words of the message)
const BAD: &[(&str, &str, &[&str])] = &[
    (
        "  variants:\n    - name: a b\n",
        "config.variants[0].name",
        &["letters, digits"],
    ),
    (
        "  variants:\n    - name: a\n    - name: a\n",
        "config.variants[1].name",
        &["duplicate variant name `a`"],
    ),
    (
        "  variants:\n    - {name: a, baseline: true}\n    - {name: b, baseline: true}\n",
        "config.variants",
        &["2 variants say `baseline: true` (a, b)"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverrides: {demoo: {add: {description: x}}}\n",
        "config.variants[0].toolOverrides.demoo",
        &["unknown server `demoo`", "did you mean demo?"],
    ),
    (
        "  variants:\n    - name: a\n      servers: some\n",
        "config.variants[0].servers",
        &["expected `none`"],
    ),
    (
        "  variants:\n    - name: a\n      servers: none\n      decoys: {demo: [{name: x}]}\n",
        "config.variants[0].decoys",
        &["servers: none"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverrides: {demo: {add: {}}}\n",
        "config.variants[0].toolOverrides.demo.add",
        &["changes nothing"],
    ),
    (
        "  variants:\n    - name: a\n      decoys: {demo: [{name: x, inputSchema: 3}]}\n",
        "config.variants[0].decoys.demo[0].inputSchema",
        &["expected a JSON Schema object"],
    ),
    (
        "  variants:\n    - name: a\n      agent: {type: builtin.codx}\n",
        "config.variants[0].agent.type",
        &["unknown agent type"],
    ),
    (
        "  variants:\n    - name: a\n      toolOverides: {}\n",
        "config.variants[0].toolOverides",
        &["unknown field", "did you mean toolOverrides?"],
    ),
    ("  variants: []\n", "config.variants", &["is empty"]),
];

#[test]
fn a_bad_variant_is_an_error_at_its_key_path() {
    for (variants, key_path, words) in BAD {
        let dir = tempfile::tempdir().unwrap();
        let eval = format!(
            "kind: Eval\nmetadata: {{name: vary}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
             mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: sum.yaml\n{variants}"
        );
        write(dir.path(), "eval.yaml", &eval);
        write(dir.path(), "agent.yaml", AGENT);
        write(dir.path(), "mcp.yaml", MCP);
        write(dir.path(), "sum.yaml", &task("sum", "say hi"));
        let errors = validate_eval(&dir.path().join("eval.yaml")).unwrap_err();
        let error = errors
            .iter()
            .find(|e| e.key_path.starts_with(key_path))
            .unwrap_or_else(|| panic!("{variants}: no error at {key_path}: {errors}"));
        for word in *words {
            assert!(error.message.contains(word), "{variants}: {error}");
        }
        assert!(
            error.location.is_some() || key_path.ends_with(']'),
            "{error}"
        );
    }
}
