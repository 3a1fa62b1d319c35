use super::*;
use crate::report::results::AssertionResult;

fn count(passed: usize, runs: usize) -> PassCount {
    PassCount { passed, runs }
}

#[test]
fn one_run_each_compares_the_verdicts() {
    assert_eq!(
        classify(count(1, 1), count(0, 1)),
        (Change::Regressed, None)
    );
    assert_eq!(classify(count(0, 1), count(1, 1)), (Change::Fixed, None));
    assert_eq!(
        classify(count(1, 1), count(1, 1)),
        (Change::Unchanged, None)
    );
    assert_eq!(
        classify(count(0, 1), count(0, 1)),
        (Change::Unchanged, None)
    );
}

#[test]
fn at_five_runs_only_a_drop_unlikely_to_be_chance_is_a_regression() {
    let (change, p) = classify(count(5, 5), count(0, 5));
    assert_eq!(change, Change::Regressed);
    assert!((p.unwrap() - 1.0 / 252.0).abs() < 1e-12);
    // 5 of 5 against 1 of 5 passes: p = 6/252, a regression though some runs passed.
    assert_eq!(classify(count(5, 5), count(1, 5)).0, Change::Regressed);
    // 5 of 5 against 3 of 5: p = 0.2222, flaky now, lower but not clearly.
    let (change, p) = classify(count(5, 5), count(3, 5));
    assert_eq!(change, Change::Flaky);
    assert!((p.unwrap() - 0.222_222_222_2).abs() < 1e-9);
    // 2 of 5 against 0 of 5: p = 0.2222 and no run passes: lower, not clearly.
    assert_eq!(classify(count(2, 5), count(0, 5)).0, Change::Lower);
    assert_eq!(classify(count(0, 5), count(5, 5)).0, Change::Fixed);
    assert_eq!(classify(count(3, 5), count(5, 5)).0, Change::Higher);
    assert_eq!(classify(count(3, 5), count(3, 5)), (Change::Flaky, None));
}

fn run(test: &str, passed: bool, tool_errors: usize, held: bool) -> TaskResult {
    let assertion = AssertionResult {
        passed: held,
        details: Vec::new(),
    };
    TaskResult {
        test_name: test.into(),
        task_passed: passed,
        tool_errors,
        duration_ms: 1000.0,
        assertion_results: [("toolsUsed".to_owned(), assertion)].into(),
        ..TaskResult::default()
    }
}

#[test]
fn a_diff_names_the_figures_that_changed() {
    let base = [run("e::t", true, 0, true)];
    let current = [run("e::t", false, 2, false)];
    let diffs = task_diffs(&base, &current);
    assert_eq!(diffs.len(), 1);
    assert_eq!(diffs[0].change, Change::Regressed);
    assert_eq!(
        diffs[0].describe_changes("->"),
        "assertion toolsUsed held in 1 of 1 runs -> 0 of 1; tool errors 0 -> 2"
    );
    assert_eq!(diffs[0].describe_runs("->"), "1 of 1 -> 0 of 1 runs passed");
}

#[test]
fn new_removed_and_new_flaky_tests() {
    let base = [run("e::old", true, 0, true)];
    let current = [
        run("e::fresh", true, 0, true),
        run("e::shaky", true, 0, true),
        run("e::shaky", false, 0, true),
    ];
    let changes: Vec<(String, Change)> = (task_diffs(&base, &current).into_iter())
        .map(|d| (d.test_name, d.change))
        .collect();
    assert_eq!(
        changes,
        [
            ("e::fresh".to_owned(), Change::New),
            ("e::old".to_owned(), Change::Removed),
            ("e::shaky".to_owned(), Change::Flaky),
        ]
    );
}

#[test]
fn timing_noise_is_no_change() {
    let base = [run("e::t", true, 0, true)];
    let mut slower = run("e::t", true, 0, true);
    slower.duration_ms = 1400.0;
    assert!(task_diffs(&base, &[slower.clone()])[0].changes.is_empty());
    slower.duration_ms = 2000.0;
    let diffs = task_diffs(&base, &[slower]);
    assert_eq!(diffs[0].describe_changes("->"), "duration ms 1000 -> 2000");
}

#[test]
fn a_conversation_s_turn_that_stopped_passing_is_named() {
    let turn = |turn: u32, passed: bool| crate::report::results::TurnRecord {
        turn,
        prompt: String::new(),
        answer: None,
        passed,
        not_run: false,
        calls: 0,
        tokens: None,
        duration_ms: None,
        failures: Vec::new(),
    };
    let mut base = run("e::t", true, 0, true);
    base.turns = vec![turn(1, true), turn(2, true)];
    let mut current = run("e::t", false, 0, true);
    current.turns = vec![turn(1, true), turn(2, false)];
    let diffs = task_diffs(&[base], &[current]);
    assert_eq!(
        diffs[0].describe_changes("->"),
        "turn 2 passed in 1 of 1 runs -> 0 of 1"
    );
}
