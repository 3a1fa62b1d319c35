//! `maxToolResultTokens` and `maxToolDefinitionTokens`: the token cost of what the servers
//! put into the agent's context, counted with o200k_base ([`crate::tokens`]).

use crate::tokens::{TOKENIZER, definition_tokens, describe, result_tokens};
use crate::trace::CallTrace;

/// How many of a server's biggest definitions a failure names.
const BIGGEST_DEFINITIONS: usize = 3;

/// `maxToolResultTokens`: `(expected, actual)` when some tool result has more than `max`
/// tokens; each such call is named with its position and count.
pub(super) fn results_over(max: u32, trace: &CallTrace) -> Option<(String, String)> {
    let over: Vec<String> = (trace.calls.iter().enumerate())
        .filter_map(|(i, call)| {
            let tokens = result_tokens(call)?;
            (tokens > max as usize).then(|| {
                format!(
                    "#{} {}/{} {}",
                    i + 1,
                    call.server,
                    call.name,
                    describe(tokens)
                )
            })
        })
        .collect();
    if over.is_empty() {
        return None;
    }
    let results = if over.len() == 1 { "result" } else { "results" };
    Some((
        format!(
            "every tool result at most {} ({TOKENIZER})",
            describe(max as usize)
        ),
        format!(
            "{} tool {results} above it: {}",
            over.len(),
            over.join(", ")
        ),
    ))
}

/// `maxToolDefinitionTokens`: `(expected, actual)` when the tool definitions some server
/// advertised have more than `max` tokens together; each such server is named with its
/// count and its biggest definitions.
pub(super) fn definitions_over(max: u32, trace: &CallTrace) -> Option<(String, String)> {
    let over: Vec<String> = (trace.advertised.iter())
        .filter_map(|(server, advertised)| {
            let mut tools: Vec<(usize, &str)> = (advertised.tools.iter())
                .map(|tool| {
                    (
                        definition_tokens(tool),
                        tool["name"].as_str().unwrap_or("?"),
                    )
                })
                .collect();
            let total: usize = tools.iter().map(|(tokens, _)| tokens).sum();
            if total <= max as usize {
                return None;
            }
            tools.sort_by_key(|(tokens, _)| std::cmp::Reverse(*tokens));
            let biggest: Vec<String> = (tools.iter().take(BIGGEST_DEFINITIONS))
                .map(|(tokens, name)| format!("{name} {}", describe(*tokens)))
                .collect();
            let n = tools.len();
            Some(format!(
                "{server}: {} for {n} tool{} (biggest: {})",
                describe(total),
                if n == 1 { "" } else { "s" },
                biggest.join(", ")
            ))
        })
        .collect();
    (!over.is_empty()).then(|| {
        (
            format!(
                "each server's tool definitions at most {} together ({TOKENIZER})",
                describe(max as usize)
            ),
            over.join("; "),
        )
    })
}
