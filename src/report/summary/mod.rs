//! A set of results summed up (`totals.rs`: `Summary`, what the harness prints and a
//! merged report carries, and its text), and what it counts over the runs: surface
//! coverage (`coverage.rs`), tool tokens and the biggest tool results (`tool_tokens.rs`),
//! schema findings per tool (`schema.rs`) and the faults injected (`faults.rs`); results
//! read from disk and merged into a `Report` with its summary (`report_file.rs`).

mod cost;
mod coverage;
mod faults;
mod parameters;
mod report_file;
mod schema;
mod tool_tokens;
mod totals;

pub use cost::CostSummary;
pub use coverage::{ServerCoverage, coverage, template_matches};
pub use faults::FaultSummary;
pub use parameters::{PropertyCoverage, ServerParameters, ToolParameters, parameter_coverage};
pub use report_file::{Report, ReportError, load_results, merge};
pub use schema::{SchemaSummary, ToolSchemaCounts};
pub use tool_tokens::{BiggestResult, ServerTokenSummary, ToolTokenSummary, tool_tokens};
pub use totals::{LlmRunCounts, Summary, Tally};
