//! What a set of runs cost, summed from their results files' `cost`: in total, per run,
//! per task and per variant, the part replayed from cassettes (what those calls cost when
//! recorded), the models no price names, and what recording the whole suite live would
//! cost (each test's mean cost a run times its runs).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::llm::pricing::dollars;
use crate::report::results::TaskResult;

/// The cost of a set of runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostSummary {
    /// The priced calls of every run, in US dollars.
    pub total_usd: f64,
    /// Runs whose model calls said what they used.
    pub runs: usize,
    /// `total_usd / runs`.
    pub per_run_usd: f64,
    /// The part of `total_usd` from runs that replayed calls: what those cost when recorded.
    pub replayed_usd: f64,
    /// Each test's cost over its runs, by test name.
    pub by_task: BTreeMap<String, f64>,
    /// Each variant's cost over its runs (absent without variants).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_variant: BTreeMap<String, f64>,
    /// What recording the suite live costs: each test's mean cost a run times the runs it
    /// asks for (`runs`, 1 when unset).
    pub projected_live_usd: f64,
    /// The models no price names (their calls are in no figure), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpriced: Vec<String>,
}

impl CostSummary {
    /// The cost of `results`; `None` when no run said what its model calls used.
    pub fn of(results: &[TaskResult]) -> Option<CostSummary> {
        let mut summary = CostSummary::default();
        // test → (cost over its runs, runs with a cost, runs it asks for)
        let mut tests: BTreeMap<&str, (f64, usize, u32)> = BTreeMap::new();
        for result in results {
            let Some(cost) = &result.cost else {
                continue;
            };
            summary.runs += 1;
            summary.total_usd += cost.usd;
            if cost.replayed {
                summary.replayed_usd += cost.usd;
            }
            for model in &cost.unpriced {
                if !summary.unpriced.contains(model) {
                    summary.unpriced.push(model.clone());
                }
            }
            let test = tests.entry(result.test_name.as_str()).or_default();
            test.0 += cost.usd;
            test.1 += 1;
            test.2 = result.total_runs.unwrap_or(1).max(1);
            if let Some(variant) = &result.variant {
                *summary.by_variant.entry(variant.clone()).or_default() += cost.usd;
            }
        }
        if summary.runs == 0 {
            return None;
        }
        summary.per_run_usd = summary.total_usd / summary.runs as f64;
        for (test, (usd, runs, asked)) in tests {
            summary.by_task.insert(test.to_owned(), usd);
            summary.projected_live_usd += usd / runs as f64 * f64::from(asked);
        }
        Some(summary)
    }

    /// Text lines for a terminal.
    pub fn render(&self) -> Vec<String> {
        let mut line = format!(
            "cost: {} over {} run{} ({} a run)",
            dollars(self.total_usd),
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            dollars(self.per_run_usd)
        );
        if self.replayed_usd > 0.0 {
            line.push_str(&format!(
                "; {} of it replayed (what those calls cost when recorded)",
                dollars(self.replayed_usd)
            ));
        }
        let mut lines = vec![line];
        if !self.by_variant.is_empty() {
            let variants: Vec<String> = (self.by_variant.iter())
                .map(|(variant, usd)| format!("{variant} {}", dollars(*usd)))
                .collect();
            lines.push(format!("  cost by variant: {}", variants.join(", ")));
        }
        lines.push(format!(
            "  recording the suite live: {}",
            dollars(self.projected_live_usd)
        ));
        if !self.unpriced.is_empty() {
            lines.push(format!(
                "  unpriced (no price names them, not in these figures): {}",
                self.unpriced.join(", ")
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::pricing::RunCost;

    fn run(test: &str, variant: &str, usd: f64, replayed: bool, runs: u32) -> TaskResult {
        TaskResult {
            test_name: format!("e::{test}@{variant}"),
            variant: Some(variant.into()),
            total_runs: Some(runs),
            cost: Some(RunCost {
                usd,
                unpriced: if usd == 0.0 {
                    vec!["local-model".into()]
                } else {
                    Vec::new()
                },
                replayed,
            }),
            ..TaskResult::default()
        }
    }

    #[test]
    fn figures_per_task_variant_run_and_the_live_projection() {
        // a@x asks for 3 runs and 2 ran ($0.01 and $0.03: mean $0.02, projected $0.06);
        // b@x one run of $0.10, replayed; b@y one unpriced run ($0, named).
        let results = [
            run("a", "x", 0.01, false, 3),
            run("a", "x", 0.03, false, 3),
            run("b", "x", 0.10, true, 1),
            run("b", "y", 0.0, false, 1),
            TaskResult::default(),
        ];
        let summary = CostSummary::of(&results).unwrap();
        assert_eq!(summary.runs, 4);
        assert!((summary.total_usd - 0.14).abs() < 1e-12);
        assert!((summary.per_run_usd - 0.035).abs() < 1e-12);
        assert!((summary.replayed_usd - 0.10).abs() < 1e-12);
        assert!((summary.by_task["e::a@x"] - 0.04).abs() < 1e-12);
        assert!((summary.by_variant["x"] - 0.14).abs() < 1e-12);
        // 0.02 × 3 + 0.10 × 1 + 0 × 1.
        assert!((summary.projected_live_usd - 0.16).abs() < 1e-12);
        assert_eq!(summary.unpriced, ["local-model"]);
        assert_eq!(
            summary.render(),
            [
                "cost: $0.1400 over 4 runs ($0.0350 a run); $0.1000 of it replayed (what those calls cost when recorded)",
                "  cost by variant: x $0.1400, y $0",
                "  recording the suite live: $0.1600",
                "  unpriced (no price names them, not in these figures): local-model",
            ]
        );
        assert_eq!(CostSummary::of(&[TaskResult::default()]), None);
    }
}
