//! Two reports compared, keyed by test name (`report_diff.rs`: `ReportDiff` and its text):
//! each test's change (regressed, fixed, new, removed, flaky, lower or higher but not
//! clearly; `task_diff.rs`), a regression only when the drop is unlikely to be chance
//! (`fisher.rs`), the figures of its runs that changed (`task_figures.rs`), what changed
//! about the servers (`diff_servers.rs`) and the budgets checked (`budgets.rs`). Its
//! markdown and JSON are the render wing's.

pub mod budgets;
mod diff_servers;
mod fisher;
mod report_diff;
mod task_diff;
mod task_figures;

pub use budgets::{BudgetCheck, Budgets, check_budgets, median_result_tokens};
pub use diff_servers::{SchemaChange, ServerChange};
pub use fisher::{ALPHA, drop_p_value, rise_p_value};
pub(in crate::report) use report_diff::percent;
pub use report_diff::{DiffFormat, ReportDiff, diff_reports};
pub use task_diff::{Change, Direction, TaskDiff};
pub use task_figures::{FigureChange, Runs};
