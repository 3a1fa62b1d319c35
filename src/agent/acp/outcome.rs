//! What an ACP agent's run came to: its answer, tool calls, usage and version from the
//! session's updates and the prompt's answer, and why it failed when it did.

use serde_json::Value;

use super::{Conversation, Stop};
use crate::agent::contract::AgentOutcome;
use crate::llm::TokenUsage;
use crate::plumbing::ended::Ended;

/// The outcome of a conversation: its answer, tool calls, usage and version, and why it
/// failed when it did.
pub(super) fn outcome_of(
    conversation: Conversation,
    ended: Result<Value, Stop>,
    status: Option<std::process::ExitStatus>,
) -> AgentOutcome {
    let Conversation {
        process,
        session,
        agent_info,
        ..
    } = conversation;
    let mut stdout = session.transcript.clone();
    let stop_reason = ended
        .as_ref()
        .ok()
        .map(|answer| answer["stopReason"].as_str().unwrap_or("").to_owned());
    let usage = ended.as_ref().ok().and_then(prompt_usage);
    if let Some(stop) = &stop_reason {
        stdout.push(format!("stopReason: {stop}"));
    }
    if let Some(usage) = &usage {
        stdout.push(format!(
            "usage: {} prompt, {} completion, {} total tokens",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        ));
    }
    if !session.denials.is_empty() {
        stdout.push(format!("permission denied: {}", session.denials.join("; ")));
    }
    let outcome = match (&ended, stop_reason.as_deref()) {
        (Err(Stop::Reason(reason)), _) => Ended::Failed(reason.clone()),
        (Err(Stop::CannotContinue(reason)), _) => Ended::Failed(reason.to_string()),
        (Err(Stop::Gone(method)), _) => Ended::Failed(format!(
            "the ACP agent ended before answering `{method}` ({})",
            match status {
                Some(status) => exit_text(status),
                None => "its output closed; mcpeval killed its process group".into(),
            }
        )),
        (Ok(_), Some("end_turn")) => Ended::Passed,
        (Ok(_), Some("") | None) => {
            Ended::Failed("the ACP agent answered its prompt without a stopReason".into())
        }
        (Ok(_), Some(stop)) => Ended::Failed(format!(
            "the ACP agent stopped its turn with stopReason `{stop}`{}",
            match stop {
                "refusal" => " (it refused to go on)",
                "cancelled" => " (it was cancelled)",
                "max_tokens" | "max_turn_requests" => " (it hit its own limit)",
                _ => "",
            }
        )),
    };
    let tool_calls = session.tool_calls();
    AgentOutcome {
        ended: outcome,
        answer: session.answer(),
        stdout: stdout.iter().map(|line| format!("{line}\n")).collect(),
        stderr: process.stderr(),
        usage,
        tool_call_count: (ended.is_ok() || !tool_calls.is_empty())
            .then(|| u32::try_from(tool_calls.len()).unwrap_or(u32::MAX)),
        tool_calls,
        turns: None,
        version: agent_info.as_ref().and_then(version_of),
        cannot_continue: match ended {
            Err(Stop::CannotContinue(reason)) => Some(reason),
            _ => None,
        },
    }
}

/// `exit code 3`, `killed by signal 9`.
fn exit_text(status: std::process::ExitStatus) -> String {
    match (
        status.code(),
        std::os::unix::process::ExitStatusExt::signal(&status),
    ) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended abnormally".into(),
    }
}

/// `agentInfo` as a version: `@agentclientprotocol/claude-agent-acp 0.49.0`.
pub(super) fn version_of(info: &Value) -> Option<String> {
    let version = info["version"].as_str()?;
    Some(match info["name"].as_str() {
        Some(name) => format!("{name} {version}"),
        None => version.to_owned(),
    })
}

/// The prompt answer's `usage` (ACP: `inputTokens`, `outputTokens`, `cachedReadTokens`,
/// `cachedWriteTokens`, `totalTokens`), else the `_meta.usage` mcpchecker reads
/// (`input_tokens`, …). Cached tokens count as prompt tokens.
pub(super) fn prompt_usage(answer: &Value) -> Option<TokenUsage> {
    let count = |usage: &Value, keys: &[&str]| {
        keys.iter()
            .filter_map(|key| usage[*key].as_u64())
            .sum::<u64>()
    };
    let (usage, camel) = match answer.get("usage") {
        Some(usage) if usage.is_object() => (usage, true),
        _ => (
            answer["_meta"].get("usage").filter(|u| u.is_object())?,
            false,
        ),
    };
    let [input, output, total, read, write] = if camel {
        [
            "inputTokens",
            "outputTokens",
            "totalTokens",
            "cachedReadTokens",
            "cachedWriteTokens",
        ]
    } else {
        [
            "input_tokens",
            "output_tokens",
            "total_tokens",
            "cached_read_tokens",
            "cached_write_tokens",
        ]
    };
    let prompt = count(usage, &[input, read, write]);
    let completion = count(usage, &[output]);
    if prompt == 0 && completion == 0 && usage[total].as_u64().unwrap_or(0) == 0 {
        return None;
    }
    Some(TokenUsage::new(prompt, completion, usage[total].as_u64()))
}
