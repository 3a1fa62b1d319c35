//! The script agent (`mcpeval script-agent --mcp-config FILE PROMPT`, or a test binary of
//! the harness started as `$MCPEVAL_BIN script-agent …`): a deterministic agent that makes
//! exactly the calls its prompt lists, one per line, through the servers of the MCP config it
//! is given. Lines that are not directives are ignored, so a prompt can carry prose too.
//!
//! ```text
//! call SERVER TOOL [JSON-ARGUMENTS]
//! read SERVER URI
//! prompt SERVER NAME [JSON-ARGUMENTS]
//! pick SERVER /REGEX/ [JSON]  call the first tool (tools/list, every page, in order) whose
//!                             description, or title when it has none, matches REGEX
//! list SERVER                 tools/list
//! list-all SERVER             tools/list, resources/list, resources/templates/list and
//!                             prompts/list, every page
//! reconnect SERVER            a new session with the server (a fresh initialize)
//! give-up SECONDS             later tool calls are cancelled after SECONDS without an
//!                             answer (0: wait for ever)
//! say TEXT                    part of the final answer
//! sleep SECONDS
//! exit CODE                   stop at once with this exit code
//! ```
//! The final answer (stdout) is the `say` lines, or else the text of the last result.
//! Notes go to stderr: a failed request, a `pick` that matches no tool, a directive naming
//! a server the MCP config lacks (the agent goes on in each case).
//!
//! Not part of mcpeval's API: the module is public for the `mcpeval` binary only.

mod error;
mod requests;
mod run;
mod script;
mod servers;

pub use error::ScriptAgentError;
pub use requests::call_tool;
pub use run::{main_with_args, run, run_blocking};
pub use script::{Directive, ScriptError, ToolPattern, parse_script};
