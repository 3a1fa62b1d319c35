//! `builtin.codex`: the real Codex CLI, `codex exec --json` (`crate::agent::codex` runs it).

use super::{BuiltinKind, KindId, Program, VersionSource};
use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

pub(super) const KIND: BuiltinKind = BuiltinKind {
    id: KindId::Codex,
    name: "codex",
    aliases: &[],
    provider: Some(Provider::OpenAi),
    llm: Some((LlmApi::OpenAiResponses, "OPENAI_BASE_URL")),
    // Its config file lists the allowed tools, or none for all of them.
    needs_tool_list: false,
    program: Some(Program {
        command: "codex",
        display: "Codex",
        package: "@openai/codex",
        tested_version: "0.169.0",
    }),
    version: VersionSource::ProgramFlag,
    counts_turns: false,
    skills: None,
};
