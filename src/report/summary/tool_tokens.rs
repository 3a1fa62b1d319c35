//! Tool token cost over a set of results: per server, the tokens of its tool definitions
//! and of its tool results; the biggest tool results of all runs, biggest first.
//!
//! A results file holds its run's figures (`toolTokens`) and each tool call's
//! (`callHistory.toolCalls[].resultTokens`); results files without them (written before
//! they were counted) add nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::results::{TaskResult, run_name};
use crate::tokens::{TOKENIZER, grouped};

/// How many of the biggest tool results a summary names.
pub const BIGGEST_RESULTS: usize = 10;

/// Tool tokens over a set of results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolTokenSummary {
    /// The encoding counted with: `o200k_base`.
    pub tokenizer: String,
    /// Per server, by name.
    pub servers: BTreeMap<String, ServerTokenSummary>,
    /// The biggest tool results of all runs, biggest first (at most ten).
    pub biggest_results: Vec<BiggestResult>,
}

/// One server's tool tokens over a set of results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTokenSummary {
    /// Its tool definitions' tokens together, in the run where they were most (a server's
    /// definitions rarely differ between runs); 0 when no run listed its tools.
    pub definition_tokens: usize,
    /// The tools of that run.
    pub tools: usize,
    /// Its tool calls, over all runs.
    pub tool_calls: usize,
    /// Their results' tokens together.
    pub result_tokens: usize,
    /// Its biggest result's tokens.
    pub biggest_result_tokens: usize,
}

/// One tool result among the biggest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BiggestResult {
    /// The run: the test name, with `#k` for the k-th of several runs.
    pub test_name: String,
    /// The server's name.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The call's position among all calls of its run, from 1.
    pub call: usize,
    /// The result's tokens.
    pub tokens: usize,
}

/// The tool tokens of `results`; `None` when none of them counted any.
pub fn tool_tokens(results: &[TaskResult]) -> Option<ToolTokenSummary> {
    let mut summary = ToolTokenSummary {
        tokenizer: TOKENIZER.to_owned(),
        ..ToolTokenSummary::default()
    };
    for result in results {
        let figures = result.tool_tokens.iter().flat_map(|tokens| &tokens.servers);
        for (server, run) in figures {
            let total = summary.servers.entry(server.clone()).or_default();
            if run.definition_tokens > total.definition_tokens {
                total.definition_tokens = run.definition_tokens;
                total.tools = run.tools;
            }
            total.tool_calls += run.tool_calls;
            total.result_tokens += run.result_tokens;
            total.biggest_result_tokens =
                total.biggest_result_tokens.max(run.biggest_result_tokens);
        }
        let calls = result.call_history.tool_calls.iter();
        summary.biggest_results.extend(calls.filter_map(|call| {
            Some(BiggestResult {
                test_name: run_name(result),
                server: call.server_name.clone(),
                tool: call.name.clone(),
                call: call.position,
                tokens: call.result_tokens?,
            })
        }));
    }
    if summary.servers.is_empty() && summary.biggest_results.is_empty() {
        return None;
    }
    // Biggest first; equal ones in test and call order.
    summary
        .biggest_results
        .sort_by(|a, b| (b.tokens, &a.test_name, a.call).cmp(&(a.tokens, &b.test_name, b.call)));
    summary.biggest_results.truncate(BIGGEST_RESULTS);
    Some(summary)
}

impl ToolTokenSummary {
    /// Text lines for a terminal: each server's figures, then the biggest results.
    pub fn render(&self) -> Vec<String> {
        let tokenizer = &self.tokenizer;
        let mut lines: Vec<String> = (self.servers.iter())
            .map(|(server, s)| {
                format!(
                    "tool tokens ({tokenizer}) of {server}: definitions {} ({} tool{}); results {} in {} call{}, biggest {}",
                    grouped(s.definition_tokens),
                    s.tools,
                    plural(s.tools),
                    grouped(s.result_tokens),
                    s.tool_calls,
                    plural(s.tool_calls),
                    grouped(s.biggest_result_tokens)
                )
            })
            .collect();
        if !self.biggest_results.is_empty() {
            lines.push(format!("biggest tool results ({tokenizer} tokens):"));
            let width = (self.biggest_results.iter())
                .map(|r| grouped(r.tokens).len())
                .max()
                .unwrap_or(0);
            lines.extend(self.biggest_results.iter().map(|r| {
                format!(
                    "  {:>width$}  {} {}/{} call #{}",
                    grouped(r.tokens),
                    r.test_name,
                    r.server,
                    r.tool,
                    r.call
                )
            }));
        }
        lines
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
#[path = "tool_tokens_tests.rs"]
mod tests;
