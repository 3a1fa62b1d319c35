//! Configuration files: Eval, MCP config, Agent and Task, loaded as typed data and validated
//! with errors that name the file, the line and column, the key path and what was expected.
//!
//! Each file is first read into plain serde structs (strict: unknown keys are errors), then a
//! validation pass turns them into the types the runner uses. Nothing downstream re-checks
//! what validation guarantees.

mod acp_file;
mod agent;
mod agent_file;
mod arguments;
mod arguments_match;
mod assertion_kind;
mod assertions;
mod builtin;
mod check;
mod error;
mod eval;
mod extensions;
mod faults;
mod header_events;
mod http_step;
mod judge;
mod matchers;
mod mcp;
mod mcp_env;
mod raw_step;
pub mod shell_script;
mod skills;
mod sniff;
mod steps;
mod task;
mod task_file;
mod task_header;
mod task_set;
pub mod template;
mod variants;
mod yaml;

pub(crate) use yaml::LocationIndex;

pub use agent::{AcpAgent, CLAUDE_ACP_COMMAND, CLAUDE_ACP_PACKAGE};
pub use agent::{
    Agent, AgentCommand, AgentLlm, AgentOptions, AgentSkills, DEFAULT_AGENT_TIMEOUT, RunPrompt,
};
pub use agent_file::load_agent_file;
pub use arguments::{ArgumentPattern, ValueType};
pub use arguments_match::{Comparison, Difference};
pub use assertion_kind::AssertionKind;
pub use assertions::{AfterFault, Assertions, SkillMatcher};
#[cfg(feature = "cli")]
#[cfg(all(feature = "cli", test))]
pub(crate) use builtin::BUILTINS;
#[cfg(feature = "cli")]
pub(crate) use builtin::{builtin_kind, builtin_names};
pub use builtin::{key_variable, llm_agent_model};
pub use error::{ConfigError, ConfigErrors, did_you_mean, suggest};
pub use eval::{Eval, SnapshotMode, duplicate_eval_names, load_eval, load_eval_with};
pub use extensions::{
    DEFAULT_EXTENSION_TIMEOUT, ExtensionSpec, ExtensionStep, GitHubPackage, Package, parse_package,
};
pub use http_step::{FieldCheck, HttpBody, HttpStep, JsonType};
pub use judge::JudgeConfig;
pub use matchers::{CallMatcher, OrderedCall, kind_name};
pub use mcp::{
    AllowedTools, McpConfig, McpServer, Transport, expand_vars, load_mcp_config,
    load_mcp_config_with,
};
pub use sniff::says_kind_eval;
pub use steps::{DEFAULT_STEP_TIMEOUT, JudgeStep, ScriptSource, ScriptStep, Step, TaskStep};
pub use task::{Difficulty, Limits, Task, TaskContext, TaskVersion};
pub use task_file::load_task;
pub use task_header::{TaskHeader, read_task_header, task_header};
pub use task_set::{SchemaViolations, TaskSet, TaskSource};
pub use variants::{Decoy, ToolOverride, Variant};
