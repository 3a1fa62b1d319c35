//! One task run: fresh proxies, then setup, the agent (its LLM proxies, its MCP config), verify
//! and the assertions within the task timeout, cleanup, and what the run produced
//! ([`RunReport`]). `task.rs` orders the phases, `phases.rs` times them, `agent_phase.rs` and
//! `llm_phase.rs` are the agent's side (`sampling_llm.rs`: the judge model answering the
//! servers' sampling requests), `servers.rs` the servers' side, `variant.rs` what a
//! variant changes, `secrets.rs` what is never written.

pub(crate) mod agent_phase;
pub(crate) mod llm_phase;
pub(crate) mod phases;
pub(crate) mod report;
pub(crate) mod sampling_llm;
pub(crate) mod secrets;
pub(crate) mod servers;
pub(crate) mod step_context;
pub(crate) mod task;
pub(crate) mod timed;
pub(crate) mod turns;
pub(crate) mod variant;

pub use report::{ConversationTurn, LlmClient, LlmRecord, RunOptions, RunPhase, RunReport};
pub use secrets::PLACEHOLDER_KEY;
pub use task::{DEFAULT_CLEANUP_TIMEOUT, DEFAULT_TASK_TIMEOUT, run_task};
