//! Pass counts of the runs of one test, and flaky tests: those whose runs both passed and
//! failed. Computed from results files alone (runs of one test share its `testName`), so the
//! harness's summary, `mcpeval report` and `mcpeval diff` agree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::result::TaskResult;

/// How many runs of one test passed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCount {
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
}

impl PassCount {
    /// `passed / runs` (0 for no runs).
    pub fn rate(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.passed as f64 / self.runs as f64
        }
    }

    /// The 95% Wilson score interval of the pass rate.
    pub fn interval(&self) -> (f64, f64) {
        wilson_interval(self.passed, self.runs)
    }

    /// Enough runs passed for a test with `min_pass_rate` to pass (with a tolerance, so
    /// that 2 of 3 meets a `minPassRate` written as 0.6666666666666666).
    pub fn meets(&self, min_pass_rate: f64) -> bool {
        self.rate() + 1e-9 >= min_pass_rate
    }

    /// Some runs passed and some failed.
    pub fn is_flaky(&self) -> bool {
        self.passed > 0 && self.passed < self.runs
    }

    /// `2 of 3 runs passed (67%, 95% Wilson interval 21%–94%)`.
    pub fn describe(&self) -> String {
        let (low, high) = self.interval();
        format!(
            "{} of {} runs passed ({:.0}%, 95% Wilson interval {:.0}%–{:.0}%)",
            self.passed,
            self.runs,
            self.rate() * 100.0,
            low * 100.0,
            high * 100.0
        )
    }
}

/// The pass count of every test of `results`, by test name.
pub fn pass_counts(results: &[TaskResult]) -> BTreeMap<String, PassCount> {
    let mut counts: BTreeMap<String, PassCount> = BTreeMap::new();
    for result in results {
        let count = counts.entry(result.test_name.clone()).or_default();
        count.passed += usize::from(result.task_passed);
        count.runs += 1;
    }
    counts
}

/// A test whose runs both passed and failed, as the report's summary lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FlakyTask {
    /// The test name, `<eval>::<task>`.
    pub test_name: String,
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
    /// `passed / runs`.
    pub pass_rate: f64,
    /// The 95% Wilson score interval of the pass rate, `[low, high]`.
    pub pass_rate_interval: [f64; 2],
}

impl FlakyTask {
    /// The test `test_name` with `count`.
    pub fn new(test_name: &str, count: PassCount) -> Self {
        let (low, high) = count.interval();
        Self {
            test_name: test_name.to_owned(),
            passed: count.passed,
            runs: count.runs,
            pass_rate: count.rate(),
            pass_rate_interval: [low, high],
        }
    }

    /// Its pass count.
    pub fn count(&self) -> PassCount {
        PassCount {
            passed: self.passed,
            runs: self.runs,
        }
    }
}

/// The flaky tests of `results`, by test name.
pub fn flaky_tasks(results: &[TaskResult]) -> Vec<FlakyTask> {
    pass_counts(results)
        .into_iter()
        .filter(|(_, count)| count.is_flaky())
        .map(|(name, count)| FlakyTask::new(&name, count))
        .collect()
}

/// The Wilson score interval (95 %) of `passes` out of `runs`.
pub fn wilson_interval(passes: usize, runs: usize) -> (f64, f64) {
    if runs == 0 {
        return (0.0, 1.0);
    }
    let n = runs as f64;
    let p = passes as f64 / n;
    let z = 1.959_963_984_540_054_f64;
    let z2 = z * z;
    let center = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((center - half).max(0.0), (center + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        let (low, high) = wilson_interval(2, 3);
        assert!(
            (low - 0.2077).abs() < 1e-3 && (high - 0.9385).abs() < 1e-3,
            "{low} {high}"
        );
        let (low, high) = wilson_interval(3, 3);
        assert!((low - 0.4385).abs() < 1e-3 && high == 1.0, "{low} {high}");
        assert_eq!(wilson_interval(0, 0), (0.0, 1.0));
    }

    #[test]
    fn only_tests_with_passed_and_failed_runs_are_flaky() {
        let count = |passed, runs| PassCount { passed, runs };
        assert!(count(2, 3).is_flaky());
        assert!(!count(3, 3).is_flaky());
        assert!(!count(0, 3).is_flaky());
        assert!(!count(1, 1).is_flaky());
        assert_eq!(
            count(2, 3).describe(),
            "2 of 3 runs passed (67%, 95% Wilson interval 21%–94%)"
        );
    }
}
