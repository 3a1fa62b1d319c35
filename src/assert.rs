//! Assertions over a recorded call trace. Failures are data ([`AssertionFailure`]), rendered
//! once; every failed assertion lists every offending entry or call.

mod after_fault;
mod closest;
mod duplicates;
mod elicitations;
mod order;
mod tokens;

pub use duplicates::canonical;

use std::fmt;

use crate::config::{AssertionKind, Assertions, CallMatcher, SkillMatcher, kind_name};
use crate::plan::AssertionSet;
use crate::trace::{AgentToolCall, CallKind, CallTrace, Outcome, RecordedCall, result_text};

/// One assertion that did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertionFailure {
    /// The task set whose assertion failed, e.g. `config.taskSets[1]`.
    pub task_set: String,
    /// The assertion, e.g. `toolsUsed`.
    pub assertion: AssertionKind,
    /// What the assertion asked for.
    pub expected: String,
    /// What the trace shows instead.
    pub actual: String,
}

impl fmt::Display for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}):\n    expected: {}\n    actual:   {}",
            self.assertion, self.task_set, self.expected, self.actual
        )
    }
}

/// Checks every task set's assertions against `trace`, in task-set order.
pub fn check_all(sets: &[AssertionSet], trace: &CallTrace) -> Vec<AssertionFailure> {
    sets.iter()
        .flat_map(|set| check(&set.task_set, &set.assertions, trace))
        .collect()
}

/// Checks the skill assertions of every set against the agent's own calls of its skill
/// tool (`skill_tool`), as mcpchecker does: the serialized input of each such call.
pub fn check_skills(
    sets: &[AssertionSet],
    agent_calls: &[AgentToolCall],
    skill_tool: &str,
) -> Vec<AssertionFailure> {
    let inputs: Vec<String> = agent_calls
        .iter()
        .filter(|call| call.name == skill_tool)
        .map(|call| call.input.to_string())
        .collect();
    let loaded = if inputs.is_empty() {
        format!("no call of the agent's `{skill_tool}` tool")
    } else {
        format!("`{skill_tool}` called with {}", inputs.join(", "))
    };
    let mut failures = Vec::new();
    for set in sets {
        let a = &set.assertions;
        let found = |m: &&SkillMatcher| inputs.iter().any(|input| m.matches(input));
        let missing: Vec<String> = a
            .skills_loaded
            .iter()
            .filter(|m| !found(m))
            .map(|m| m.describe())
            .collect();
        let forbidden: Vec<String> = a
            .skills_not_loaded
            .iter()
            .filter(found)
            .map(|m| m.describe())
            .collect();
        for (kind, entries, what) in [
            (AssertionKind::SkillsLoaded, missing, "loaded"),
            (AssertionKind::SkillsNotLoaded, forbidden, "not loaded"),
        ] {
            if !entries.is_empty() {
                failures.push(AssertionFailure {
                    task_set: set.task_set.clone(),
                    assertion: kind,
                    expected: format!("{what}: {}", entries.join(", ")),
                    actual: loaded.clone(),
                });
            }
        }
    }
    failures
}

/// Checks one task set's assertions against `trace`.
pub fn check(task_set: &str, assertions: &Assertions, trace: &CallTrace) -> Vec<AssertionFailure> {
    let a = assertions;
    let mut check = TraceCheck {
        task_set,
        trace,
        failures: Vec::new(),
    };
    check.each_entry_matched(AssertionKind::ToolsUsed, CallKind::Tool, &a.tools_used);
    check.each_entry_matched(
        AssertionKind::ResourcesRead,
        CallKind::Resource,
        &a.resources_read,
    );
    check.each_entry_matched(
        AssertionKind::PromptsUsed,
        CallKind::Prompt,
        &a.prompts_used,
    );
    check.any_entry_matched(&a.require_any);
    check.no_entry_matched(
        AssertionKind::ToolsNotUsed,
        CallKind::Tool,
        &a.tools_not_used,
    );
    check.no_entry_matched(
        AssertionKind::ResourcesNotRead,
        CallKind::Resource,
        &a.resources_not_read,
    );
    check.no_entry_matched(
        AssertionKind::PromptsNotUsed,
        CallKind::Prompt,
        &a.prompts_not_used,
    );
    check.tool_call_count(a.min_tool_calls, a.max_tool_calls);
    check.tool_errors(a.max_tool_errors);
    if let Some((expected, actual)) =
        (a.max_tool_result_tokens).and_then(|max| tokens::results_over(max, trace))
    {
        check.fail(AssertionKind::MaxToolResultTokens, expected, actual);
    }
    if let Some((expected, actual)) =
        (a.max_tool_definition_tokens).and_then(|max| tokens::definitions_over(max, trace))
    {
        check.fail(AssertionKind::MaxToolDefinitionTokens, expected, actual);
    }
    if let Some((expected, actual)) = order::check_order(&a.call_order, trace) {
        check.fail(AssertionKind::CallOrder, expected, actual);
    }
    if a.no_duplicate_calls {
        check.no_duplicate_calls();
    }
    if let Some((expected, actual)) =
        (a.after_fault.as_ref()).and_then(|after| after_fault::check(after, trace))
    {
        check.fail(AssertionKind::AfterFault, expected, actual);
    }
    for (kind, expected, actual) in elicitations::check(a, trace) {
        check.fail(kind, expected, actual);
    }
    check.failures
}

/// The assertions of one task set checked against one trace, collecting the failures.
struct TraceCheck<'t> {
    task_set: &'t str,
    trace: &'t CallTrace,
    failures: Vec<AssertionFailure>,
}

impl TraceCheck<'_> {
    fn fail(&mut self, assertion: AssertionKind, expected: String, actual: String) {
        self.failures.push(AssertionFailure {
            task_set: self.task_set.to_owned(),
            assertion,
            expected,
            actual,
        });
    }

    /// `toolsUsed`, `resourcesRead`, `promptsUsed`: every entry matches a call of `kind`.
    fn each_entry_matched(
        &mut self,
        assertion: AssertionKind,
        kind: CallKind,
        entries: &[CallMatcher],
    ) {
        let trace = self.trace;
        let missing: Vec<&CallMatcher> = entries
            .iter()
            .filter(|entry| !calls_of(trace, kind).any(|(_, call)| entry.matches_call(call)))
            .collect();
        if !missing.is_empty() {
            let wanted: Vec<String> = missing.iter().map(|e| e.describe()).collect();
            self.fail(
                assertion,
                format!("a {} matching each of: {}", noun(kind), wanted.join(", ")),
                format!(
                    "none of them; {}{}",
                    list_calls(trace, kind),
                    why_unmatched(&missing, trace, kind)
                ),
            );
        }
    }

    /// `requireAny`: some entry matches some tool call.
    fn any_entry_matched(&mut self, entries: &[CallMatcher]) {
        let trace = self.trace;
        if !entries.is_empty()
            && !calls_of(trace, CallKind::Tool)
                .any(|(_, call)| entries.iter().any(|e| e.matches_call(call)))
        {
            let wanted: Vec<String> = entries.iter().map(CallMatcher::describe).collect();
            let entries: Vec<&CallMatcher> = entries.iter().collect();
            self.fail(
                AssertionKind::RequireAny,
                format!(
                    "a tool call matching at least one of: {}",
                    wanted.join(", ")
                ),
                format!(
                    "none; {}{}",
                    list_calls(trace, CallKind::Tool),
                    why_unmatched(&entries, trace, CallKind::Tool)
                ),
            );
        }
    }

    /// `toolsNotUsed`, `resourcesNotRead`, `promptsNotUsed`: no entry matches a call of
    /// `kind`; every offending call is listed.
    fn no_entry_matched(
        &mut self,
        assertion: AssertionKind,
        kind: CallKind,
        entries: &[CallMatcher],
    ) {
        let trace = self.trace;
        let offending: Vec<String> = entries
            .iter()
            .flat_map(|entry| {
                calls_of(trace, kind)
                    .filter(|(_, call)| entry.matches_call(call))
                    .map(move |(i, call)| {
                        let call = match entry.arguments {
                            Some(_) => format!(
                                "{} {}",
                                kind_name(call.kind),
                                closest::call_with_arguments(call)
                            ),
                            None => describe_call(call),
                        };
                        format!("{call} (call #{i}, matches {})", entry.describe())
                    })
            })
            .collect();
        if !offending.is_empty() {
            let forbidden: Vec<String> = entries.iter().map(CallMatcher::describe).collect();
            self.fail(
                assertion,
                format!("no {} matching: {}", noun(kind), forbidden.join(", ")),
                offending.join("; "),
            )
        }
    }

    /// `minToolCalls` and `maxToolCalls`.
    fn tool_call_count(&mut self, min: Option<u32>, max: Option<u32>) {
        let tool_calls = calls_of(self.trace, CallKind::Tool).count();
        if let Some(min) = min.filter(|min| tool_calls < *min as usize) {
            self.fail(
                AssertionKind::MinToolCalls,
                format!("at least {min} tool calls"),
                format!("{tool_calls} tool calls"),
            );
        }
        if let Some(max) = max.filter(|max| tool_calls > *max as usize) {
            self.fail(
                AssertionKind::MaxToolCalls,
                format!("at most {max} tool calls"),
                format!("{tool_calls} tool calls"),
            );
        }
    }

    /// `maxToolErrors`: tool calls that ended in an `isError` result or a JSON-RPC error.
    /// Answers the proxy injected (a task's `faults`) are not the server's and not counted
    /// ([`CallTrace::tool_errors`]); a failure names them apart.
    fn tool_errors(&mut self, max: Option<u32>) {
        let Some(max) = max else { return };
        let (injected, errors): (Vec<_>, Vec<_>) = calls_of(self.trace, CallKind::Tool)
            .filter(|(_, call)| call.outcome.is_tool_error())
            .partition(|(_, call)| call.answer_injected());
        if errors.len() > max as usize {
            let errors: Vec<String> = (errors.iter())
                .map(|(i, call)| {
                    format!("#{i} {}/{} ({})", call.server, call.name, outcome_of(call))
                })
                .collect();
            let injected: Vec<String> = (injected.iter())
                .filter_map(|(i, call)| Some(format!("#{i} {}", call.injected.as_ref()?)))
                .collect();
            let not_counted = if injected.is_empty() {
                String::new()
            } else {
                format!("; not counted: {}", injected.join(", "))
            };
            self.fail(
                AssertionKind::MaxToolErrors,
                format!("at most {max} tool errors (isError results and protocol errors)"),
                format!(
                    "{} tool errors: {}{not_counted}",
                    errors.len(),
                    errors.join(", ")
                ),
            );
        }
    }

    /// `noDuplicateCalls`.
    fn no_duplicate_calls(&mut self) {
        let duplicates = duplicates::find_duplicates(self.trace);
        if !duplicates.is_empty() {
            self.fail(
                AssertionKind::NoDuplicateCalls,
                "no two tool calls with the same server, tool and arguments".into(),
                duplicates.join("; "),
            );
        }
    }
}

/// Calls of one kind with their 1-based position among all calls.
fn calls_of(trace: &CallTrace, kind: CallKind) -> impl Iterator<Item = (usize, &RecordedCall)> {
    trace
        .calls
        .iter()
        .enumerate()
        .filter(move |(_, c)| c.kind == kind)
        .map(|(i, c)| (i + 1, c))
}

fn noun(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Tool => "tool call",
        CallKind::Resource => "resource read",
        CallKind::Prompt => "prompt get",
    }
}

/// `isError "the service is unavailable"` or `error -32602 "unknown tool"`, shortened.
fn outcome_of(call: &RecordedCall) -> String {
    match &call.outcome {
        Outcome::Ok { .. } => "ok".into(),
        Outcome::IsError { result } => {
            format!(
                "isError {:?}",
                crate::plumbing::text::shorten(&result_text(result), 120)
            )
        }
        Outcome::Error { code, message } => {
            format!(
                "error {code} {:?}",
                crate::plumbing::text::shorten(message, 120)
            )
        }
    }
}

/// `; <why>` for each entry with arguments that matched nothing (see [`closest`]).
fn why_unmatched(entries: &[&CallMatcher], trace: &CallTrace, kind: CallKind) -> String {
    entries
        .iter()
        .filter_map(|entry| closest::why_unmatched(entry, trace, kind))
        .map(|why| format!("; {why}"))
        .collect()
}

fn describe_call(call: &RecordedCall) -> String {
    format!("{} {}/{}", kind_name(call.kind), call.server, call.name)
}

fn list_calls(trace: &CallTrace, kind: CallKind) -> String {
    let calls: Vec<String> = calls_of(trace, kind)
        .map(|(_, c)| format!("{}/{}", c.server, c.name))
        .collect();
    if calls.is_empty() {
        format!(
            "no {} at all",
            noun(kind)
                .replace("call", "calls")
                .replace("read", "reads")
                .replace("get", "gets")
        )
    } else {
        format!("{}s made: {}", noun(kind), calls.join(", "))
    }
}

#[cfg(test)]
mod order_tests;
#[cfg(test)]
#[path = "assert_tests.rs"]
mod tests;

#[cfg(test)]
mod arguments_tests;

#[cfg(test)]
mod tokens_tests;

#[cfg(test)]
mod after_fault_tests;
