//! What the `faults` rules did: per run (`faults` of its results file), and over all runs
//! (faults injected, the seeds drawn with, the rules that never matched a call).

use serde::{Deserialize, Serialize};

use crate::report::results::{TaskResult, run_name};

/// The faults of the runs' `faults` rules.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FaultSummary {
    /// Faults injected.
    pub injected: u64,
    /// Runs with rules.
    pub runs: usize,
    /// The seeds the runs drew with, each once.
    pub seeds: Vec<u64>,
    /// Rules that matched no call in a run: `(run name, rule, target)`.
    pub never_matched: Vec<(String, String, String)>,
}

impl FaultSummary {
    /// No run had rules.
    pub fn is_empty(&self) -> bool {
        self.runs == 0
    }

    pub(super) fn of(results: &[TaskResult]) -> Self {
        let mut summary = FaultSummary::default();
        for result in results.iter().filter(|r| !r.faults.is_empty()) {
            summary.runs += 1;
            if let Some(seed) = result.fault_seed
                && !summary.seeds.contains(&seed)
            {
                summary.seeds.push(seed);
            }
            for note in &result.faults {
                summary.injected += u64::from(note.injected);
                if note.matched == 0 {
                    let never = (run_name(result), note.rule.clone(), note.target.clone());
                    summary.never_matched.push(never);
                }
            }
        }
        summary
    }

    pub(super) fn render(&self) -> Vec<String> {
        if self.is_empty() {
            return Vec::new();
        }
        let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
        let mut lines = vec![format!(
            "faults: {} injected on purpose in {} runs with rules (MCPEVAL_SEED {})",
            self.injected,
            self.runs,
            seeds.join(", ")
        )];
        for (run, rule, target) in &self.never_matched {
            lines.push(format!(
                "fault rule never matched: {run}: {rule} ({target}) hit no call"
            ));
        }
        lines
    }
}
