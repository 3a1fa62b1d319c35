//! `builtin.claude-code`: the real `claude` CLI (`crate::agent::claude` runs it; over ACP
//! with an Agent file's `acp: true`).

use super::{BuiltinKind, KindId, Program, VersionSource};
use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

pub(super) const KIND: BuiltinKind = BuiltinKind {
    id: KindId::ClaudeCode,
    name: "claude-code",
    aliases: &[],
    provider: Some(Provider::Anthropic),
    llm: Some((LlmApi::Anthropic, "ANTHROPIC_BASE_URL")),
    // Permission requests are answered by the list of allowed tools.
    needs_tool_list: true,
    program: Some(Program {
        command: "claude",
        display: "Claude Code",
        package: "@anthropic-ai/claude-code",
        tested_version: "2.1.330",
    }),
    version: VersionSource::UserAgent,
    counts_turns: true,
    skills: Some((".claude/skills", "Skill")),
};

/// Claude Code's ACP adapter, which mcpchecker runs for `builtin.claude-code` (and mcpeval with
/// `acp: true`).
pub const CLAUDE_CODE_ACP: Program = Program {
    command: "claude-agent-acp",
    display: "Claude Code's ACP adapter",
    package: "@agentclientprotocol/claude-agent-acp",
    tested_version: "0.49.0",
};
