//! mcpchecker-style files: the eval with labels and merged task sets, its v1alpha1 and
//! v1alpha2 tasks, and an eval with an extension.

use std::time::Duration;

use mcpeval::config::{
    Difficulty, GitHubPackage, HttpBody, JsonType, JudgeConfig, JudgeStep, Package, ScriptSource,
    Step, TaskVersion, load_eval,
};
use mcpeval::plan::plan_eval;

use super::{fixture, names};

#[test]
fn mcpchecker_eval_plans_with_labels_and_merged_task_sets() {
    assert_eq!(
        names("mcpchecker/eval.yaml"),
        [
            "mcpchecker-style::create-pod",
            "mcpchecker-style::explain-pods",
            "mcpchecker-style::fix-crashloop"
        ]
    );
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let fix = plan
        .cases
        .iter()
        .find(|c| c.name.ends_with("fix-crashloop"))
        .unwrap();
    let sets: Vec<&str> = fix
        .assertion_sets
        .iter()
        .map(|s| s.task_set.as_str())
        .collect();
    assert_eq!(sets, ["config.taskSets[0]", "config.taskSets[1]"]);
    let eval = &plan.eval;
    let judge = eval.llm_judge.as_ref().unwrap();
    assert!(
        matches!(judge, JudgeConfig::Env { model_name_key, .. } if model_name_key == "JUDGE_MODEL_NAME")
    );
    assert_eq!(eval.default_limits.timeout, Some(Duration::from_secs(900)));
    assert_eq!(
        eval.default_limits.cleanup_timeout,
        Some(Duration::from_secs(120))
    );
}

#[test]
fn v1alpha1_task_with_files_inline_script_and_prompt_file() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[0].load(&plan.eval).unwrap();
    assert_eq!(task.version, TaskVersion::V1Alpha1);
    assert_eq!(task.name, "create-pod");
    assert_eq!(task.difficulty, Some(Difficulty::Easy));
    assert_eq!(task.labels["area"], "pods");
    assert!(
        task.prompt
            .starts_with("Create an nginx pod named web-server")
    );
    let dir = fixture("mcpchecker/tasks/create-pod");
    assert_eq!(task.dir(), dir);
    let Step::Script(setup) = &task.setup[0].step else {
        panic!()
    };
    assert_eq!(setup.source, ScriptSource::File(dir.join("setup.sh")));
    let Step::Script(cleanup) = &task.cleanup[0].step else {
        panic!()
    };
    assert!(
        matches!(&cleanup.source, ScriptSource::Inline(s) if s.starts_with("#!/usr/bin/env bash"))
    );
    assert_eq!(task.verify.len(), 1);
}

#[test]
fn v1alpha1_task_verified_by_the_judge() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[1].load(&plan.eval).unwrap();
    let Step::LlmJudge(JudgeStep::Contains(text)) = &task.verify[0].step else {
        panic!("{:?}", task.verify)
    };
    assert!(text.contains("CrashLoopBackOff"));
}

#[test]
fn v1alpha2_task_with_every_step_type_and_limits() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[2].load(&plan.eval).unwrap();
    assert_eq!(task.version, TaskVersion::V1Alpha2);
    assert_eq!((task.parallel, task.runs), (true, Some(3)));
    assert_eq!(task.limits.timeout, Some(Duration::from_secs(5400)));
    assert_eq!(
        task.limits.cleanup_timeout,
        Some(Duration::from_millis(500))
    );
    assert!(task.prompt.contains("$(anything)"));
    let Step::Script(setup) = &task.setup[0].step else {
        panic!()
    };
    assert_eq!(
        (setup.timeout, setup.env["NAMESPACE"].as_str()),
        (Duration::from_secs(120), "crashloop")
    );
    let Step::Http(reset) = &task.setup[1].step else {
        panic!()
    };
    assert_eq!(reset.method, "POST");
    assert_eq!(
        reset.body,
        Some(HttpBody::Json(
            serde_json::json!({"namespace": "crashloop", "wipe": true})
        ))
    );
    assert_eq!(reset.expect_status, Some(204));
    let Step::Script(check) = &task.verify[0].step else {
        panic!()
    };
    assert!(check.continue_on_error);
    let Step::Http(pods) = &task.verify[1].step else {
        panic!()
    };
    assert_eq!(pods.method, "GET");
    assert!(
        pods.expect_body_match
            .as_ref()
            .unwrap()
            .is_match("status: Running")
    );
    assert_eq!(pods.expect_fields.len(), 4);
    assert_eq!(pods.expect_fields[1].kind, Some(JsonType::Array));
    assert_eq!(pods.expect_fields[3].exists, Some(false));
    assert!(matches!(
        &task.verify[2].step,
        Step::LlmJudge(JudgeStep::Exact(_))
    ));
    assert_eq!(task.cleanup.len(), 1);
}

#[test]
fn mcpchecker_eval_with_an_extension_loads_its_package_requirement_and_steps() {
    assert_eq!(
        names("mcpchecker/extensions.yaml"),
        ["mcpchecker-extensions::deploy-web"]
    );
    let eval = load_eval(&fixture("mcpchecker/extensions.yaml")).unwrap();
    let kubernetes = &eval.extensions["kubernetes"];
    assert_eq!(
        kubernetes.package,
        Package::GitHub(GitHubPackage {
            owner: "mcpchecker".into(),
            repo: "kubernetes-extension".into(),
            version: Some("v0.0.2".into()),
        })
    );
    let plan = plan_eval(eval).unwrap();
    let task = plan.cases[0].load(&plan.eval).unwrap();
    let steps: Vec<String> = task
        .extension_steps()
        .map(|s| format!("{} {} {}", s.key_path, s.name(), s.extension))
        .collect();
    assert_eq!(
        steps,
        [
            "spec.setup[0] k8s.delete kubernetes",
            "spec.setup[1] k8s.create kubernetes",
            "spec.verify[0] k8s.wait kubernetes",
            "spec.cleanup[0] k8s.delete kubernetes",
        ]
    );
    let wait = task.extension_steps().nth(2).unwrap();
    assert_eq!(wait.args["metadata"]["namespace"], "web-test");
    assert_eq!(wait.args["timeout"], "90s");
}
