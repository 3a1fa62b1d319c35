//! The results file of one task run and what it holds (`result.rs`: `TaskResult`, its
//! assertions, phase outputs and token figures; `calls.rs`: `callHistory` and `llmCalls`;
//! `surface.rs`: what the run's servers advertised; `variant_details.rs`: what a variant
//! changed), and the runs of one test counted (`flaky.rs`: `PassCount`, the Wilson
//! interval, flaky tests), which every other wing of the report counts by.

mod calls;
mod flaky;
mod result;
mod surface;
mod variant_details;

pub use calls::{CallHistory, CallRecord, LlmCalls, LlmTurnTime};
pub use flaky::{FlakyTask, PassCount, flaky_tasks, pass_counts, wilson_interval};
pub use result::{
    AssertionDetail, AssertionResult, FailedAt, FaultNote, PhaseOutput, RESULTS_SCHEMA_VERSION,
    SchemaVersion, ServerFailureRecord, StepOutput, TaskResult, TokenEstimate, ToolTokens,
    TurnRecord, run_name,
};
pub use surface::{ServerTools, Surface, ToolSummary, tool_sets};
pub use variant_details::{AppliedOverride, DecoyCall, VariantDetails};
