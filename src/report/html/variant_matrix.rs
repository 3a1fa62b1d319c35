//! One eval's passes per task and variant, for the HTML report: a row per task, a column
//! per variant (the baseline first), each cell the task's passes and runs in that variant.

use std::collections::BTreeMap;

use super::link::anchor;
use crate::report::results::{PassCount, TaskResult};
use crate::report::variants::{count, eval_runs};

/// One eval's passes per task and variant.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantMatrix {
    /// The eval.
    pub eval: String,
    /// The columns: the baseline first, then by name.
    pub variants: Vec<String>,
    /// One row per task, by name.
    pub rows: Vec<MatrixRow>,
}

/// A task's passes in each variant.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRow {
    /// The task (without `@variant`).
    pub task: String,
    /// One cell per variant of the matrix, `None` where the variant did not run the task.
    pub cells: Vec<Option<MatrixCell>>,
}

/// The runs of one task in one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixCell {
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
    /// The test, `<eval>::<task>@<variant>`.
    pub test_name: String,
    /// The anchor of its first run in the HTML report.
    pub anchor: String,
}

/// The matrix of every eval with variants: its tasks by its variants.
pub fn variant_matrices(results: &[TaskResult]) -> Vec<VariantMatrix> {
    (eval_runs(results).into_iter())
        .map(|eval| {
            let mut rows: BTreeMap<&str, Vec<Option<MatrixCell>>> = BTreeMap::new();
            let columns = eval.variants.len();
            for (column, (_, tasks)) in eval.variants.iter().enumerate() {
                for (task, runs) in tasks {
                    let cells = rows.entry(task).or_insert_with(|| vec![None; columns]);
                    let first = runs[0];
                    let PassCount { passed, runs } = count(runs);
                    cells[column] = Some(MatrixCell {
                        passed,
                        runs,
                        test_name: first.test_name.clone(),
                        anchor: anchor(first),
                    });
                }
            }
            VariantMatrix {
                eval: eval.eval.to_owned(),
                variants: (eval.variants.iter())
                    .map(|(name, _)| (*name).to_owned())
                    .collect(),
                rows: (rows.into_iter())
                    .map(|(task, cells)| MatrixRow {
                        task: task.to_owned(),
                        cells,
                    })
                    .collect(),
            }
        })
        .collect()
}
