//! After the tests ran: results files merged into one report with a summary (flaky tests
//! among it), JUnit XML for dashboards, a self-contained HTML page (`html/`), and the
//! difference between two reports for a pull request.

pub mod budgets;
mod diff;
mod diff_format;
mod diff_servers;
mod fisher;
pub mod github;
mod html;
mod junit;
mod markdown;
mod markdown_report;
mod outcome;
mod results;
mod summary;
mod task_diff;
mod task_figures;
mod variant_matrix;
mod variants;

pub use budgets::{BudgetCheck, Budgets, check_budgets, median_result_tokens};
pub use diff::{DiffFormat, ReportDiff, diff_reports};
pub use diff_format::DIFF_SCHEMA_VERSION;
pub use diff_servers::{SchemaChange, ServerChange};
pub use fisher::{ALPHA, drop_p_value, rise_p_value};
pub use html::{HtmlError, anchor, render_html, write_html};
pub use junit::junit_xml;
pub use markdown::{COMMENT_LIMIT, MARKER, diff_markdown};
pub use markdown_report::report_markdown;
pub use outcome::{TestOutcome, test_outcomes};
pub use results::{
    AppliedOverride, AssertionDetail, AssertionResult, CallHistory, CallRecord, DecoyCall,
    FaultNote, FlakyTask, LlmCalls, LlmTurnTime, PassCount, PhaseOutput, RESULTS_SCHEMA_VERSION,
    SchemaVersion, ServerFailureRecord, StepOutput, Surface, TaskResult, TokenEstimate, ToolTokens,
    VariantDetails, flaky_tasks, pass_counts, run_name, wilson_interval,
};
pub use summary::{
    BiggestResult, FaultSummary, LlmRunCounts, Report, ReportError, SchemaSummary, ServerCoverage,
    ServerTokenSummary, Summary, Tally, ToolSchemaCounts, ToolTokenSummary, coverage, load_results,
    merge, template_matches, tool_tokens,
};
pub use task_diff::{Change, Direction, TaskDiff};
pub use task_figures::{FigureChange, Runs};
pub use variant_matrix::{MatrixCell, MatrixRow, VariantMatrix, variant_matrices};
pub use variants::{
    Comparison, PairedTest, SignFlip, VariantReport, VariantSummary, VariantVerdict, format_p,
    holm, mcnemar_exact, render_variants, sign_flip, verdict,
};
