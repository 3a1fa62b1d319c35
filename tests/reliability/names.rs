//! Task and eval names never share or escape a results file.
//!
//! Names become file names: `results/<stem>.json`, the snapshot, the run directory and the
//! cassette (`mcpeval::file_stem`). Observed before: tasks `a/b` and `a_b` wrote one
//! results file (one result lost), and an eval named `../../x` wrote a hidden file name that
//! climbed out of the results directory and dropped out of the report.

use crate::common::{files_under, fixture, mcpeval, text};

/// An eval named `eval_name` with one task per name, run by the script agent against the
/// demo server, in a fresh directory.
fn eval_dir(eval_name: &str, task_names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = format!(
        "kind: Eval\nmetadata:\n  name: {eval_name:?}\nconfig:\n  agent: {{type: file, path: {:?}}}\n  \
         mcpConfigFile: {:?}\n  snapshot: off\n  taskSets:\n    - glob: \"*.task.yaml\"\n",
        fixture("agent.yaml"),
        fixture("mcp-config.yaml"),
    );
    std::fs::write(dir.path().join("eval.yaml"), eval).unwrap();
    for (index, name) in task_names.iter().enumerate() {
        let task = format!(
            "kind: Task\nmetadata:\n  name: {name:?}\nsteps:\n  prompt:\n    inline: 'call demo echo {{\"text\": \"{index}\"}}'\n"
        );
        std::fs::write(dir.path().join(format!("{index}.task.yaml")), task).unwrap();
    }
    dir
}

/// Expected: tasks `a/b`, `a_b` and `a b` (one character apart where file names replace
/// it) each keep a results file of their own, and the report holds all three.
#[test]
fn names_one_replaced_character_apart_keep_their_own_results() {
    let names = ["a/b", "a_b", "a b"];
    let dir = eval_dir("names", &names);
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(dir.path(), output.path(), &["check", "eval.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let results: Vec<String> = files_under(&output.path().join("results"))
        .into_iter()
        .filter(|name| name.ends_with(".json"))
        .collect();
    assert_eq!(results.len(), 3, "observed results files: {results:?}");
    let mut tests: Vec<String> = results
        .iter()
        .map(|name| {
            let file = output.path().join("results").join(name);
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            json["taskName"].as_str().unwrap().to_owned()
        })
        .collect();
    tests.sort();
    assert_eq!(
        tests,
        ["a b", "a/b", "a_b"],
        "observed task names in results"
    );

    let report = mcpeval(
        dir.path(),
        output.path(),
        &["report", &output.path().display().to_string()],
    );
    let stdout = text(&report.stdout);
    for name in names {
        assert!(
            stdout.contains(&format!("names::{name}")),
            "expected `names::{name}` in the report, observed:\n{stdout}"
        );
    }
}

/// Expected: an eval named `../../x` is refused at load with the file, the key path and the
/// rule, and nothing is written anywhere (observed before: a hidden `.._.._x__t.json`).
#[test]
fn a_name_that_would_climb_out_or_hide_is_refused_at_load() {
    let dir = eval_dir("../../x", &["t"]);
    let output = tempfile::tempdir().unwrap();
    let runs = output.path().join("out");
    let out = mcpeval(dir.path(), &runs, &["check", "eval.yaml"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("eval.yaml")
            && stderr.contains("metadata.name")
            && stderr.contains("no `.` at the start"),
        "observed: {stderr}"
    );
    assert_eq!(files_under(output.path()), Vec::<String>::new());
}
