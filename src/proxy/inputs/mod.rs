//! What a proxy is given: how to reach the real server ([`Upstream`]) and its tunables
//! ([`ProxyOptions`]), with what it changes on purpose in what the agent sees: a variant's
//! tools ([`ToolRewrite`]) and the run's faults ([`FaultPlan`]).

mod fault_plan;
mod options;
mod tool_rewrite;
mod upstream;

pub(crate) use fault_plan::Delayed;
pub use fault_plan::{FaultPlan, RuleNote};
pub use options::ProxyOptions;
pub use tool_rewrite::{DECOY_ANSWER, RewriteNotes, ToolPatch, ToolRewrite};
pub use upstream::Upstream;
