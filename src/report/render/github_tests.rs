use super::*;

fn run(test: &str, passed: bool, reason: &str, index: Option<u32>) -> TaskResult {
    TaskResult {
        test_name: test.into(),
        task_path: "evals/acme/tasks/sum.yaml".into(),
        task_passed: passed,
        task_error: (!passed).then(|| reason.to_owned()),
        reasons: if passed {
            Vec::new()
        } else {
            vec![reason.into()]
        },
        run_index: index,
        total_runs: index.map(|_| 3),
        ..TaskResult::default()
    }
}

fn at_line(line: u64) -> impl Fn(&TestOutcome<'_>) -> Place {
    move |test| Place {
        file: test.runs[0].task_path.clone(),
        line,
    }
}

#[test]
fn properties_escape_colons_and_commas_and_messages_do_not() {
    assert_eq!(escape_data("50% a:b,c\r\nnext"), "50%25 a:b,c%0D%0Anext");
    assert_eq!(
        escape_property("acme::sum, 50%\n"),
        "acme%3A%3Asum%2C 50%25%0A"
    );
}

#[test]
fn a_failed_test_is_an_error_at_its_place_with_its_first_reason() {
    let results = [
        run(
            "acme::sum",
            false,
            "toolsUsed (config.taskSets[0]): expected a call of acme/sum\nactual: none",
            None,
        ),
        run("acme::fine", true, "", None),
    ];
    assert_eq!(
        annotations(&results, &at_line(12)),
        [
            "::error file=evals/acme/tasks/sum.yaml,line=12,title=acme%3A%3Asum::toolsUsed (config.taskSets[0]): expected a call of acme/sum%0Aactual: none"
        ]
    );
}

#[test]
fn a_flaky_test_that_passed_is_a_warning_and_one_that_failed_an_error() {
    let mut results = vec![
        run("acme::lenient", true, "", Some(0)),
        run("acme::lenient", false, "agent: exit 1", Some(1)),
        run("acme::lenient", true, "", Some(2)),
        run("acme::strict", true, "", Some(0)),
        run("acme::strict", false, "agent: exit 1", Some(1)),
        run("acme::strict", true, "", Some(2)),
    ];
    for result in &mut results[..3] {
        result.min_pass_rate = Some(0.6);
    }
    assert_eq!(
        annotations(&results, &at_line(1)),
        [
            "::warning file=evals/acme/tasks/sum.yaml,line=1,title=acme%3A%3Alenient::flaky: 2 of 3 runs passed (67%25, 95%25 Wilson interval 21%25–94%25); minPassRate 0.6",
            "::error file=evals/acme/tasks/sum.yaml,line=1,title=acme%3A%3Astrict::2 of 3 runs passed (67%25, 95%25 Wilson interval 21%25–94%25); minPassRate 1; first failure (run 2): agent: exit 1",
        ]
    );
}

#[test]
fn paths_inside_the_workspace_are_relative_to_it() {
    let workspace = Path::new("/home/runner/work/acme");
    assert_eq!(
        workspace_path(
            Path::new("/home/runner/work/acme/evals/t.yaml"),
            Some(workspace)
        ),
        "evals/t.yaml"
    );
    assert_eq!(
        workspace_path(Path::new("/elsewhere/t.yaml"), Some(workspace)),
        "/elsewhere/t.yaml"
    );
    assert_eq!(
        workspace_path(Path::new("evals/t.yaml"), None),
        "evals/t.yaml"
    );
}
