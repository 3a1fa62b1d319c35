//! An agent, as an eval's `config.agent` or an Agent file describes it: the kinds and their
//! options (`definition`), the Agent file (`file`) and its ACP form (`acp_file`), mcpchecker's
//! builtin agents (`builtin`), the skills mounted for it (`skills`), and the command templates
//! (`template`) whose shell scripts are placed by quoting context (`shell_script`). Each
//! builtin kind describes itself in a file of `kinds/`; `builtin` validates a named kind into
//! its [`Agent`].

mod acp_file;
pub(crate) mod builtin;
pub(crate) mod definition;
pub(crate) mod file;
pub mod kinds;
pub mod shell_script;
pub(crate) mod skills;
pub mod template;

pub use definition::{
    AcpAgent, Agent, AgentCommand, AgentLlm, AgentOptions, AgentSkills, BuiltinAgent,
    DEFAULT_AGENT_TIMEOUT, RunPrompt,
};
pub use file::load_agent_file;
pub use kinds::{
    BUILTINS, BuiltinKind, CLAUDE_CODE_ACP, KindId, Program, VersionSource, builtin_kind,
    builtin_names, key_variable, llm_agent_model,
};
