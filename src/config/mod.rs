//! Configuration files: Eval, MCP config, Agent and Task, loaded as typed data and validated
//! with errors that name the file, the line and column, the key path and what was expected.
//!
//! Each file is first read into plain serde structs (strict: unknown keys are errors), then a
//! validation pass turns them into the types the runner uses. Nothing downstream re-checks
//! what validation guarantees.
//!
//! The eval file and what it names sit here (`eval`, `mcp`, `mcp_env`, `task_set`,
//! `variants`, `extensions`, `judge`); four wings hold the rest:
//!
//! - [`files`]: reading a file (YAML with locations, errors, the checker that collects them,
//!   which kind a file is);
//! - [`agent`]: an agent, as an eval's `config.agent` or an Agent file names it (builtin kinds,
//!   ACP agents, command templates and their shell scripts, skills);
//! - [`task`]: a task file (its header read leniently, its prompt, steps and `faults`);
//! - [`assertions`]: a task set's assertions (kinds, call matchers, argument patterns).
//!
//! The wings import each other (`task` and `assertions` use `files`); none imports this
//! face.

pub mod agent;
pub mod assertions;
mod eval;
mod extensions;
pub mod files;
mod judge;
mod mcp;
mod mcp_env;
pub mod task;
mod task_set;
mod variants;

pub(crate) use files::LocationIndex;

pub use agent::{
    AcpAgent, Agent, AgentCommand, AgentLlm, AgentOptions, AgentSkills, BUILTINS, BuiltinAgent,
    BuiltinKind, CLAUDE_CODE_ACP, DEFAULT_AGENT_TIMEOUT, KindId, Program, RunPrompt, VersionSource,
    builtin_kind, builtin_names, key_variable, llm_agent_model, load_agent_file, shell_script,
    template,
};
pub use assertions::{
    AfterFault, ArgumentPattern, ArgumentsComparison, AssertionKind, Assertions, CallMatcher,
    Difference, ElicitationMatcher, OrderedCall, SkillMatcher, ValueType, kind_name,
};
pub use eval::{Eval, SnapshotMode, duplicate_eval_names, load_eval, load_eval_with};
pub use extensions::{
    DEFAULT_EXTENSION_TIMEOUT, ExtensionSpec, ExtensionStep, GitHubPackage, Package, parse_package,
};
pub use files::{ConfigError, ConfigErrors, did_you_mean, says_kind_eval, suggest};
pub use judge::JudgeConfig;
pub use mcp::{
    AllowedTools, McpConfig, McpServer, Transport, expand_vars, load_mcp_config,
    load_mcp_config_with,
};
pub use task::{
    DEFAULT_STEP_TIMEOUT, Difficulty, FieldCheck, FollowUp, HttpBody, HttpStep, JsonType,
    JudgeStep, Limits, ScriptSource, ScriptStep, Step, Task, TaskContext, TaskHeader, TaskStep,
    TaskVersion, load_task, read_task_header, task_header,
};
pub use task_set::{SchemaViolations, TaskSet, TaskSource};
pub use variants::{Decoy, ToolOverride, Variant};
