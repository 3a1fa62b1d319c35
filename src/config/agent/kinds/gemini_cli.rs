//! `builtin.gemini-cli`: the real Gemini CLI, `gemini --output-format stream-json`
//! (`crate::agent::gemini_cli` runs it).

use super::{BuiltinKind, KindId, Program, VersionSource};
use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

pub(super) const KIND: BuiltinKind = BuiltinKind {
    id: KindId::GeminiCli,
    name: "gemini-cli",
    aliases: &[],
    provider: Some(Provider::Gemini),
    llm: Some((LlmApi::Gemini, "GOOGLE_GEMINI_BASE_URL")),
    // Its settings file lists the allowed tools, or none for all of them.
    needs_tool_list: false,
    program: Some(Program {
        command: "gemini",
        display: "Gemini CLI",
        package: "@google/gemini-cli",
        tested_version: "0.61.0",
    }),
    version: VersionSource::ProgramFlag,
    counts_turns: false,
    skills: None,
};
