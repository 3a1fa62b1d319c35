//! One task run through the harness: `mcpeval check` and `cargo test` doors, steps, assertions,
//! variants, snapshots, faults on purpose, and the builtin agents against fake LLM APIs.

#[path = "../support/mod.rs"]
mod support;

mod assertion_runs;
mod conversation;
mod coverage;
mod elicitation;
mod faults;
mod harness;
mod llm_agent;
mod llm_agent_runs;
mod openai_agent;
mod protocol_eras;
mod sampling_judge;
mod schema_checks;
mod script_agent;
mod shell_agent;
mod snapshot_paths;
mod snapshot_update;
mod steps;
mod steps_http;
mod steps_judge;
mod tool_tokens;
mod variants;
