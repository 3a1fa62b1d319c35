//! Planning: task sets in order, globs sorted with `**`, only `kind: Task` files, one case per
//! file with every matching set's assertions, label selectors, names `<eval>::<task>`.

use std::path::Path;

use mcpeval::config::load_eval;
use mcpeval::plan::{TaskCase, glob_files, plan_eval, plan_task};

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn task(dir: &Path, path: &str, name: &str, labels: &str) {
    write(
        dir,
        path,
        &format!(
            "kind: Task\nmetadata: {{name: {name}, labels: {{{labels}}}}}\nsteps:\n  prompt: {{inline: do {name}}}\n"
        ),
    );
}

fn eval_with(dir: &Path, task_sets: &str) -> mcpeval::plan::EvalPlan {
    write(dir, "mcp.yaml", "mcpServers: {k8s: {command: srv}}\n");
    write(
        dir,
        "eval.yaml",
        &format!(
            "kind: Eval\nmetadata: {{name: ev}}\nconfig:\n  agent: {{type: builtin.claude-code}}\n  mcpConfigFile: mcp.yaml\n  taskSets:\n{task_sets}"
        ),
    );
    plan_eval(load_eval(&dir.join("eval.yaml")).unwrap()).unwrap()
}

fn names(plan: &mcpeval::plan::EvalPlan) -> Vec<&str> {
    plan.cases.iter().map(|c| c.name.as_str()).collect()
}

/// The plan of `--exact ev::<task>` for the eval `eval_with` wrote.
fn exact(dir: &Path, task: &str) -> mcpeval::plan::EvalPlan {
    plan_task(load_eval(&dir.join("eval.yaml")).unwrap(), task).unwrap()
}

/// What a case is: its name, file, task sets and pass rate.
fn summary(case: &TaskCase) -> (String, std::path::PathBuf, Vec<String>, Option<f64>) {
    let sets = case.assertion_sets.iter().map(|s| s.task_set.clone());
    (
        case.name.clone(),
        case.path.clone(),
        sets.collect(),
        case.min_pass_rate,
    )
}

#[test]
fn double_star_crosses_directories_and_results_are_sorted() {
    let dir = tempfile::tempdir().unwrap();
    for p in [
        "t/b.yaml",
        "t/a.yaml",
        "t/z/deep/c.yaml",
        "t/m/d.yaml",
        "t/notes.txt",
    ] {
        write(dir.path(), p, "x");
    }
    let rel = |files: Vec<std::path::PathBuf>| -> Vec<String> {
        files
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect()
    };
    assert_eq!(
        rel(glob_files(dir.path(), "t/**/*.yaml").unwrap()),
        ["t/a.yaml", "t/b.yaml", "t/m/d.yaml", "t/z/deep/c.yaml"]
    );
    // `*` stays in one directory, even without a slash in the pattern.
    assert_eq!(
        rel(glob_files(&dir.path().join("t"), "*.yaml").unwrap()),
        ["t/a.yaml", "t/b.yaml"]
    );
    assert_eq!(
        rel(glob_files(dir.path(), "./t/*.yaml").unwrap()),
        ["t/a.yaml", "t/b.yaml"]
    );
}

#[test]
fn task_sets_keep_their_order_and_files_are_sorted_within_a_glob() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/b/second.yaml", "second", "");
    task(dir.path(), "tasks/a/first.yaml", "first", "");
    task(dir.path(), "extra/zeta.yaml", "zeta", "");
    let plan = eval_with(
        dir.path(),
        "    - path: extra/zeta.yaml\n    - glob: tasks/**/*.yaml\n",
    );
    assert_eq!(names(&plan), ["ev::zeta", "ev::first", "ev::second"]);
}

#[test]
fn a_file_matched_by_several_sets_runs_once_with_every_sets_assertions() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/one.yaml", "one", "");
    task(dir.path(), "tasks/two.yaml", "two", "");
    let plan = eval_with(
        dir.path(),
        "    - glob: tasks/*.yaml\n      assertions: {maxToolCalls: 3}\n    - path: ./tasks/two.yaml\n      assertions: {minToolCalls: 1}\n",
    );
    assert_eq!(names(&plan), ["ev::one", "ev::two"]);
    let two = &plan.cases[1];
    let limits: Vec<_> = two
        .assertion_sets
        .iter()
        .map(|s| {
            (
                s.task_set.as_str(),
                s.assertions.min_tool_calls,
                s.assertions.max_tool_calls,
            )
        })
        .collect();
    assert_eq!(
        limits,
        [
            ("config.taskSets[0]", None, Some(3)),
            ("config.taskSets[1]", Some(1), None)
        ]
    );
    assert_eq!(plan.cases[0].assertion_sets.len(), 1);
}

#[test]
fn label_selector_requires_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    task(
        dir.path(),
        "tasks/a.yaml",
        "both",
        "suite: k8s, level: easy",
    );
    task(dir.path(), "tasks/b.yaml", "suite-only", "suite: k8s");
    task(
        dir.path(),
        "tasks/c.yaml",
        "other",
        "suite: helm, level: easy",
    );
    task(dir.path(), "tasks/d.yaml", "unlabelled", "");
    let plan = eval_with(
        dir.path(),
        "    - glob: tasks/*.yaml\n      labelSelector: {suite: k8s, level: easy}\n",
    );
    assert_eq!(names(&plan), ["ev::both"]);
    let plan = eval_with(
        dir.path(),
        "    - glob: tasks/*.yaml\n      labelSelector: {suite: k8s}\n",
    );
    assert_eq!(names(&plan), ["ev::both", "ev::suite-only"]);
}

#[test]
fn only_task_files_count_other_yaml_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/pod/task.yaml", "pod", "");
    write(
        dir.path(),
        "tasks/pod/manifest.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n",
    );
    write(
        dir.path(),
        "tasks/pod/many.yaml",
        "kind: Service\n---\nkind: Task\n",
    );
    write(dir.path(), "tasks/pod/list.yaml", "- a\n- b\n");
    let plan = eval_with(dir.path(), "    - glob: tasks/**/*.yaml\n");
    assert_eq!(names(&plan), ["ev::pod"]);
}

#[test]
fn a_broken_task_file_is_its_own_failing_case_and_the_others_stay() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/good.yaml", "good", "");
    write(
        dir.path(),
        "tasks/bad.yaml",
        "kind: Task\nmetadata: {name: [unclosed\n",
    );
    write(
        dir.path(),
        "tasks/nameless.yaml",
        "kind: Task\nmetadata: {}\nsteps: {prompt: {inline: x}}\n",
    );
    write(
        dir.path(),
        "tasks/typo.yaml",
        "kind: Task\nmetadata: {name: typo}\nstepz: {}\n",
    );
    let plan = eval_with(dir.path(), "    - glob: tasks/*.yaml\n");
    assert_eq!(
        names(&plan),
        [
            "ev::tasks/bad.yaml",
            "ev::good",
            "ev::tasks/nameless.yaml",
            "ev::typo"
        ]
    );
    let bad = &plan.cases[0];
    assert!(
        bad.problem
            .as_ref()
            .unwrap()
            .message
            .contains("invalid YAML")
    );
    assert!(plan.cases[1].load(&plan.eval).is_ok());
    let nameless = plan.cases[2].load(&plan.eval).unwrap_err();
    assert_eq!(nameless.0[0].key_path, "metadata.name");
    // The header reads; the full load finds the typo.
    let typo = plan.cases[3].load(&plan.eval).unwrap_err();
    assert!(typo.0[0].message.contains("did you mean steps?"), "{typo}");
}

#[test]
fn absolute_globs_and_paths_plan_like_relative_ones() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/a/first.yaml", "first", "");
    task(dir.path(), "tasks/b/second.yaml", "second", "");
    task(dir.path(), "other/third.yaml", "third", "");
    let root = dir.path().display();
    let plan = eval_with(
        dir.path(),
        &format!("    - glob: {root}/tasks/*/*.yaml\n    - path: {root}/other/third.yaml\n"),
    );
    assert_eq!(names(&plan), ["ev::first", "ev::second", "ev::third"]);
    assert!(plan.cases.iter().all(|case| case.path.is_absolute()));
}

#[test]
fn a_glob_walks_only_below_its_literal_directories() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "evals/tasks/a.yaml", "x");
    write(dir.path(), "evals/tasks/b.yml", "x");
    write(dir.path(), "elsewhere/c.yaml", "x");
    let base = dir.path().join("evals");
    let found = glob_files(&base, "../evals/tasks/*.yaml").unwrap();
    assert_eq!(found, [base.join("../evals/tasks/a.yaml")]);
    let absolute = format!("{}/elsewhere/*.yaml", dir.path().display());
    assert_eq!(
        glob_files(&base, &absolute).unwrap(),
        [dir.path().join("elsewhere/c.yaml")]
    );
    let missing = format!("{}/nowhere/*.yaml", dir.path().display());
    assert_eq!(
        glob_files(&base, &missing).unwrap(),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn exact_plans_one_task_as_the_full_plan_does_whatever_its_file_is_called() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        let name = match i % 10 {
            0 => format!("task-{i}"),
            _ => format!("renamed-{i}"),
        };
        let labels = if i % 2 == 0 { "suite: k8s" } else { "" };
        let path = format!("tasks/{}/task-{i}.yaml", i % 7);
        task(dir.path(), &path, &name, labels);
    }
    // mcpchecker's layout: a directory per task, each file called task.yaml.
    task(dir.path(), "tasks/pods/task.yaml", "pods", "suite: k8s");
    task(dir.path(), "tasks/helm/task.yaml", "helm", "");
    // A name written with an escape.
    write(
        dir.path(),
        "tasks/odd.yaml",
        "kind: Task\nmetadata: {name: \"esc\\u0061ped\"}\nsteps: {prompt: {inline: x}}\n",
    );
    let full = eval_with(
        dir.path(),
        "    - glob: tasks/**/*.yaml\n      assertions: {maxToolCalls: 3}\n    - glob: tasks/**/*.yaml\n      labelSelector: {suite: k8s}\n      minPassRate: 0.5\n",
    );
    assert_eq!(full.cases.len(), 303);
    for task in [
        "task-40",
        "renamed-42",
        "renamed-137",
        "pods",
        "helm",
        "escaped",
    ] {
        let name = format!("ev::{task}");
        let planned = full.cases.iter().find(|c| c.name == name).unwrap();
        let exact = exact(dir.path(), task);
        assert_eq!(exact.cases.len(), 1, "{task}");
        assert_eq!(summary(&exact.cases[0]), summary(planned));
    }
    assert!(exact(dir.path(), "no-such-task").cases.is_empty());
}

#[test]
fn exact_gives_a_file_every_sets_assertions_however_the_sets_reach_it() {
    let dir = tempfile::tempdir().unwrap();
    task(dir.path(), "tasks/one.yaml", "one", "");
    task(dir.path(), "tasks/two.yaml", "two", "");
    std::os::unix::fs::symlink("two.yaml", dir.path().join("tasks/alias.yaml")).unwrap();
    let full = eval_with(
        dir.path(),
        "    - glob: tasks/*.yaml\n      assertions: {maxToolCalls: 3}\n    - path: ./tasks/two.yaml\n      assertions: {minToolCalls: 1}\n",
    );
    assert_eq!(
        names(&full),
        ["ev::two", "ev::one"],
        "the link is the file it names"
    );
    let two = summary(&full.cases[0]);
    assert_eq!(two.2.last().unwrap(), "config.taskSets[1]");
    assert_eq!(summary(&exact(dir.path(), "two").cases[0]), two);
}

#[test]
fn two_names_whose_file_names_coincide_are_an_error_naming_both() {
    // Both escape to `x________y` and share the first 4 bytes of their SHA-256 (found by
    // search): the stem's hash suffix cannot tell them apart, the plan must.
    let dir = tempfile::tempdir().unwrap();
    for (file, name) in [("a.yaml", "x  /:::// :y"), ("b.yaml", "x  ::!//!  y")] {
        let task =
            format!("kind: Task\nmetadata: {{name: {name:?}}}\nsteps:\n  prompt: {{inline: hi}}\n");
        write(dir.path(), file, &task);
    }
    write(
        dir.path(),
        "mcp.yaml",
        "mcpServers: {k8s: {command: srv}}\n",
    );
    write(
        dir.path(),
        "eval.yaml",
        "kind: Eval\nmetadata: {name: ev}\nconfig:\n  agent: {type: builtin.claude-code}\n  mcpConfigFile: mcp.yaml\n  taskSets:\n    - glob: \"*.yaml\"\n",
    );
    let errors = plan_eval(load_eval(&dir.path().join("eval.yaml")).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        errors.contains("b.yaml")
            && errors.contains("ev::x  ::!//!  y")
            && errors.contains("ev::x  /:::// :y")
            && errors.contains("would write one results file `ev__x__________y-19528e35.json`"),
        "{errors}"
    );
}
