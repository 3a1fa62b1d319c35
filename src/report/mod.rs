//! After the tests ran: results files merged into one report with a summary (flaky tests
//! among it), JUnit XML for dashboards, a self-contained HTML page, and the difference
//! between two reports for a pull request. In wings, each a folder whose `mod.rs` is its
//! face, from the bottom up: `results/` (the results file of one run; one test's runs
//! counted), `variants/` (an eval's variants against its baseline), `summary/` (a set of
//! results summed up, merged into a `Report`), `diff/` (two reports compared), `render/`
//! (markdown, JSON, JUnit XML and GitHub Actions' output) and `html/` (the HTML page). A
//! file imports its siblings directly and another wing through that wing's face, never a
//! wing above its own; this face re-exports what the rest of the crate uses.

mod diff;
mod html;
mod render;
mod results;
mod summary;
mod variants;

pub use diff::budgets;
pub use diff::{
    ALPHA, BudgetCheck, Budgets, Change, DiffFormat, Direction, FigureChange, ReportDiff, Runs,
    SchemaChange, ServerChange, TaskDiff, check_budgets, diff_reports, drop_p_value,
    median_result_tokens, rise_p_value,
};
pub use html::{
    HtmlError, MatrixCell, MatrixRow, VariantMatrix, anchor, render_html, variant_matrices,
    write_html,
};
pub use render::github;
pub use render::{
    COMMENT_LIMIT, DIFF_SCHEMA_VERSION, MARKER, TestOutcome, diff_markdown, junit_xml,
    report_markdown, test_outcomes,
};
pub use results::{
    AppliedOverride, AssertionDetail, AssertionResult, CallHistory, CallRecord, DecoyCall,
    FailedAt, FaultNote, FlakyTask, LlmCalls, LlmTurnTime, PassCount, PhaseOutput,
    RESULTS_SCHEMA_VERSION, SchemaVersion, ServerFailureRecord, ServerTools, StepOutput, Surface,
    TaskResult, TokenEstimate, ToolSummary, ToolTokens, TurnRecord, VariantDetails, flaky_tasks,
    pass_counts, run_name, tool_sets, wilson_interval,
};
pub use summary::{
    BiggestResult, CostSummary, FaultSummary, LlmRunCounts, PropertyCoverage, Report, ReportError,
    SchemaSummary, ServerCoverage, ServerParameters, ServerTokenSummary, Summary, Tally,
    ToolParameters, ToolSchemaCounts, ToolTokenSummary, coverage, load_results, merge,
    parameter_coverage, template_matches, tool_tokens,
};
pub use variants::{
    Comparison, PairedTest, SignFlip, VariantReport, VariantSummary, VariantVerdict, format_p,
    holm, mcnemar_exact, render_variants, sign_flip, verdict,
};
