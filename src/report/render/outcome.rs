//! Each test of a set of results as its runs decide it: passed (enough runs passed for its
//! `minPassRate`), flaky (its runs both passed and failed), and why it failed, in one line:
//! what the markdown summary and the GitHub annotations show.

use std::collections::BTreeMap;

use crate::report::results::{PassCount, TaskResult};

/// One test over its runs.
#[derive(Debug, Clone)]
pub struct TestOutcome<'a> {
    /// The test name.
    pub test_name: &'a str,
    /// Its runs, in run order.
    pub runs: Vec<&'a TaskResult>,
    /// How many passed.
    pub count: PassCount,
}

/// The tests of `results`, by test name.
pub fn test_outcomes(results: &[TaskResult]) -> Vec<TestOutcome<'_>> {
    let mut tests: BTreeMap<&str, Vec<&TaskResult>> = BTreeMap::new();
    for result in results {
        tests.entry(&result.test_name).or_default().push(result);
    }
    (tests.into_iter())
        .map(|(test_name, mut runs)| {
            runs.sort_by_key(|run| run.run_index);
            let count = PassCount {
                passed: runs.iter().filter(|run| run.task_passed).count(),
                runs: runs.len(),
            };
            TestOutcome {
                test_name,
                runs,
                count,
            }
        })
        .collect()
}

impl TestOutcome<'_> {
    /// The share of runs that must pass (1 unless the results say otherwise).
    pub fn min_pass_rate(&self) -> f64 {
        self.runs
            .first()
            .and_then(|r| r.min_pass_rate)
            .unwrap_or(1.0)
    }

    /// Enough runs passed.
    pub fn passed(&self) -> bool {
        self.count.meets(self.min_pass_rate())
    }

    /// Its runs both passed and failed.
    pub fn is_flaky(&self) -> bool {
        self.count.is_flaky()
    }

    /// Its first failed run.
    pub fn first_failed(&self) -> Option<&TaskResult> {
        self.runs.iter().copied().find(|run| !run.task_passed)
    }

    /// Why it failed, or why its failed runs did: one run's first reason; with several
    /// runs, the count and minPassRate, then the first failed run's first reason.
    pub fn first_reason(&self) -> String {
        let reason = self.first_failed().map_or_else(
            || "failed".to_owned(),
            |run| {
                (run.task_error.clone())
                    .or_else(|| run.reasons.first().cloned())
                    .unwrap_or_else(|| "failed".to_owned())
            },
        );
        if self.count.runs <= 1 {
            return reason;
        }
        let index = self.first_failed().and_then(|run| run.run_index);
        let run = index.map_or_else(String::new, |i| format!(" (run {})", i + 1));
        format!(
            "{}; minPassRate {}; first failure{run}: {reason}",
            self.count.describe(),
            self.min_pass_rate()
        )
    }
}
