//! The `assertions` object of a task set: raw serde form and the validated form that the
//! assertion engine uses (regexes compiled, counts checked, servers known).

use serde::Deserialize;

use super::elicitation::{ElicitationMatcher, RawElicitationMatcher};
use super::kind::AssertionKind;
use super::matchers::{CallMatcher, OrderedCall, RawCallOrder, RawMatcher};
use crate::config::files::check::Checker;
use crate::trace::CallKind;

/// `assertions` as written in the eval file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawAssertions {
    #[serde(default)]
    tools_used: Vec<RawMatcher>,
    #[serde(default)]
    require_any: Vec<RawMatcher>,
    #[serde(default)]
    tools_not_used: Vec<RawMatcher>,
    min_tool_calls: Option<i64>,
    max_tool_calls: Option<i64>,
    max_tool_errors: Option<i64>,
    max_tool_result_tokens: Option<i64>,
    max_tool_definition_tokens: Option<i64>,
    #[serde(default)]
    resources_read: Vec<RawMatcher>,
    #[serde(default)]
    resources_not_read: Vec<RawMatcher>,
    #[serde(default)]
    prompts_used: Vec<RawMatcher>,
    #[serde(default)]
    prompts_not_used: Vec<RawMatcher>,
    #[serde(default)]
    call_order: Vec<RawCallOrder>,
    #[serde(default)]
    no_duplicate_calls: bool,
    after_fault: Option<RawAfterFault>,
    #[serde(default)]
    skills_loaded: Vec<RawSkillMatcher>,
    #[serde(default)]
    skills_not_loaded: Vec<RawSkillMatcher>,
    #[serde(default)]
    elicitations: Vec<RawElicitationMatcher>,
    max_elicitations: Option<i64>,
    #[serde(default)]
    no_elicitation: bool,
}

/// `afterFault` as written: what the agent must do after the first fault injected into a
/// tool call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawAfterFault {
    retried: Option<bool>,
    tools_used: Option<Vec<RawMatcher>>,
}

/// `afterFault`: what the agent does after the first tool call whose answer the proxy
/// injected (a task's `faults`; see [`crate::trace::RecordedCall::answer_injected`]). At
/// least one of the two is set.
#[derive(Debug, Clone, Default)]
pub struct AfterFault {
    /// `retried`: `true` when the same server's same tool must be called again after the
    /// fault, `false` when it must not.
    pub retried: Option<bool>,
    /// `toolsUsed`: every entry matches some tool call after the fault.
    pub tools_used: Vec<CallMatcher>,
}

/// An entry of `skillsLoaded` / `skillsNotLoaded`: a skill by name or by pattern.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSkillMatcher {
    skill: Option<String>,
    skill_pattern: Option<String>,
}

/// A skill the agent loaded (or must not), matched as mcpchecker does against the input of
/// each of the agent's own tool calls of its skill tool, serialized as JSON: `skill` as a
/// JSON string in it (`"greeting"`), `skillPattern` as a regex over it.
#[derive(Debug, Clone)]
pub enum SkillMatcher {
    /// `skill: NAME`
    Name(String),
    /// `skillPattern: REGEX`
    Pattern(regex::Regex),
}

impl SkillMatcher {
    /// Whether the serialized input of one skill-tool call matches.
    pub fn matches(&self, input: &str) -> bool {
        match self {
            SkillMatcher::Name(name) => input.contains(&format!("\"{name}\"")),
            SkillMatcher::Pattern(regex) => regex.is_match(input),
        }
    }

    /// `skill=greeting` or `skillPattern=greet.*`, for messages.
    pub fn describe(&self) -> String {
        match self {
            SkillMatcher::Name(name) => format!("skill={name}"),
            SkillMatcher::Pattern(regex) => format!("skillPattern={}", regex.as_str()),
        }
    }
}

/// The validated assertions of one task set.
#[derive(Debug, Clone, Default)]
pub struct Assertions {
    /// `toolsUsed`: every entry matches at least one tool call.
    pub tools_used: Vec<CallMatcher>,
    /// `requireAny`: at least one entry matches at least one tool call.
    pub require_any: Vec<CallMatcher>,
    /// `toolsNotUsed`: no entry matches any tool call.
    pub tools_not_used: Vec<CallMatcher>,
    /// `minToolCalls`: tool calls over all servers, failed ones included.
    pub min_tool_calls: Option<u32>,
    /// `maxToolCalls`.
    pub max_tool_calls: Option<u32>,
    /// `maxToolErrors`: tool calls that ended in an `isError` result or a JSON-RPC error.
    pub max_tool_errors: Option<u32>,
    /// `maxToolResultTokens`: the o200k_base tokens of any one tool result
    /// ([`crate::tokens::result_tokens`]).
    pub max_tool_result_tokens: Option<u32>,
    /// `maxToolDefinitionTokens`: the o200k_base tokens of each server's tool definitions
    /// together ([`crate::tokens::definition_tokens`]).
    pub max_tool_definition_tokens: Option<u32>,
    /// `resourcesRead`.
    pub resources_read: Vec<CallMatcher>,
    /// `resourcesNotRead`.
    pub resources_not_read: Vec<CallMatcher>,
    /// `promptsUsed`.
    pub prompts_used: Vec<CallMatcher>,
    /// `promptsNotUsed`.
    pub prompts_not_used: Vec<CallMatcher>,
    /// `callOrder`: these calls appear as a subsequence of all calls.
    pub call_order: Vec<OrderedCall>,
    /// `noDuplicateCalls`.
    pub no_duplicate_calls: bool,
    /// `afterFault`: the agent's recovery from the first fault injected into a tool call.
    pub after_fault: Option<AfterFault>,
    /// `skillsLoaded`: every entry matches a call of the agent's skill tool.
    pub skills_loaded: Vec<SkillMatcher>,
    /// `skillsNotLoaded`: no entry matches one.
    pub skills_not_loaded: Vec<SkillMatcher>,
    /// `elicitations`: every entry matches an elicitation of the run.
    pub elicitations: Vec<ElicitationMatcher>,
    /// `maxElicitations`: elicitations over all servers.
    pub max_elicitations: Option<u32>,
    /// `noElicitation`: no server asked the user anything.
    pub no_elicitation: bool,
}

impl RawAssertions {
    /// Validates the assertions written at `path`; `servers` are the MCP config's server names
    /// (`None` when the MCP config did not load).
    pub fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        servers: Option<&[&str]>,
    ) -> Assertions {
        let skills_loaded =
            skill_matchers(check, &format!("{path}.skillsLoaded"), self.skills_loaded);
        let skills_not_loaded = skill_matchers(
            check,
            &format!("{path}.skillsNotLoaded"),
            self.skills_not_loaded,
        );
        use AssertionKind as K;
        let mut list = |key: K, kind: CallKind, raw: Vec<RawMatcher>| -> Vec<CallMatcher> {
            raw.into_iter()
                .enumerate()
                .filter_map(|(i, m)| {
                    m.validate(check, &format!("{path}.{key}[{i}]"), kind, servers)
                })
                .collect()
        };
        let tools_used = list(K::ToolsUsed, CallKind::Tool, self.tools_used);
        let require_any = list(K::RequireAny, CallKind::Tool, self.require_any);
        let tools_not_used = list(K::ToolsNotUsed, CallKind::Tool, self.tools_not_used);
        let resources_read = list(K::ResourcesRead, CallKind::Resource, self.resources_read);
        let resources_not_read = list(
            K::ResourcesNotRead,
            CallKind::Resource,
            self.resources_not_read,
        );
        let prompts_used = list(K::PromptsUsed, CallKind::Prompt, self.prompts_used);
        let prompts_not_used = list(K::PromptsNotUsed, CallKind::Prompt, self.prompts_not_used);
        let after_fault = self
            .after_fault
            .map(|raw| raw.validate(check, &format!("{path}.{}", K::AfterFault), servers));

        let mut count =
            |key: K, n: Option<i64>| n.and_then(|n| check.count(&format!("{path}.{key}"), n));
        let min_tool_calls = count(K::MinToolCalls, self.min_tool_calls);
        let max_tool_calls = count(K::MaxToolCalls, self.max_tool_calls);
        let max_tool_errors = count(K::MaxToolErrors, self.max_tool_errors);
        let max_tool_result_tokens = count(K::MaxToolResultTokens, self.max_tool_result_tokens);
        let max_tool_definition_tokens =
            count(K::MaxToolDefinitionTokens, self.max_tool_definition_tokens);
        let max_elicitations = count(K::MaxElicitations, self.max_elicitations);
        check_call_bounds(check, path, min_tool_calls, max_tool_calls);
        let elicitations = (self.elicitations.into_iter().enumerate())
            .filter_map(|(i, raw)| {
                raw.validate(check, &format!("{path}.{}[{i}]", K::Elicitations), servers)
            })
            .collect();
        let call_order = call_order(check, path, servers, self.call_order);

        Assertions {
            tools_used,
            require_any,
            tools_not_used,
            min_tool_calls,
            max_tool_calls,
            max_tool_errors,
            max_tool_result_tokens,
            max_tool_definition_tokens,
            resources_read,
            resources_not_read,
            prompts_used,
            prompts_not_used,
            call_order,
            no_duplicate_calls: self.no_duplicate_calls,
            after_fault,
            skills_loaded,
            skills_not_loaded,
            elicitations,
            max_elicitations,
            no_elicitation: self.no_elicitation,
        }
    }
}

impl Assertions {
    /// The tool arguments the entries' `arguments` patterns name (`toolsUsed`,
    /// `requireAny`, `toolsNotUsed`, `callOrder`), as `(server, tool, property path)`; an
    /// entry naming its tool by pattern only names no tool.
    pub fn asserted_arguments(&self) -> Vec<(&str, &str, String)> {
        let lists = [&self.tools_used, &self.require_any, &self.tools_not_used];
        let matchers = lists.into_iter().flatten().filter_map(|entry| {
            Some((
                entry.server.as_str(),
                entry.name.as_deref()?,
                entry.arguments.as_ref()?,
            ))
        });
        let ordered = (self.call_order.iter())
            .filter(|entry| entry.kind == crate::trace::CallKind::Tool && !entry.asked)
            .filter_map(|entry| {
                Some((
                    entry.server.as_str(),
                    entry.name.as_str(),
                    entry.arguments.as_ref()?,
                ))
            });
        matchers
            .chain(ordered)
            .flat_map(|(server, tool, pattern)| {
                (pattern.property_paths().into_iter()).map(move |path| (server, tool, path))
            })
            .collect()
    }

    /// The kinds of assertion this task set configures, in [`AssertionKind`] order.
    pub fn configured(&self) -> Vec<AssertionKind> {
        use AssertionKind as K;
        [
            (K::ToolsUsed, !self.tools_used.is_empty()),
            (K::RequireAny, !self.require_any.is_empty()),
            (K::ToolsNotUsed, !self.tools_not_used.is_empty()),
            (K::MinToolCalls, self.min_tool_calls.is_some()),
            (K::MaxToolCalls, self.max_tool_calls.is_some()),
            (K::MaxToolErrors, self.max_tool_errors.is_some()),
            (
                K::MaxToolResultTokens,
                self.max_tool_result_tokens.is_some(),
            ),
            (
                K::MaxToolDefinitionTokens,
                self.max_tool_definition_tokens.is_some(),
            ),
            (K::ResourcesRead, !self.resources_read.is_empty()),
            (K::ResourcesNotRead, !self.resources_not_read.is_empty()),
            (K::PromptsUsed, !self.prompts_used.is_empty()),
            (K::PromptsNotUsed, !self.prompts_not_used.is_empty()),
            (K::CallOrder, !self.call_order.is_empty()),
            (K::NoDuplicateCalls, self.no_duplicate_calls),
            (K::AfterFault, self.after_fault.is_some()),
            (K::SkillsLoaded, !self.skills_loaded.is_empty()),
            (K::SkillsNotLoaded, !self.skills_not_loaded.is_empty()),
            (K::Elicitations, !self.elicitations.is_empty()),
            (K::MaxElicitations, self.max_elicitations.is_some()),
            (K::NoElicitation, self.no_elicitation),
        ]
        .into_iter()
        .filter_map(|(kind, on)| on.then_some(kind))
        .collect()
    }
}

impl RawAfterFault {
    /// Validates `afterFault` written at `path`: at least one of `retried` and a non-empty
    /// `toolsUsed`, whose entries are validated as `toolsUsed`'s.
    fn validate(self, check: &mut Checker<'_>, path: &str, servers: Option<&[&str]>) -> AfterFault {
        let raw = self.tools_used.unwrap_or_default();
        if self.retried.is_none() && raw.is_empty() {
            check.error(
                path,
                "expected `retried`, `toolsUsed` or both; an empty afterFault asserts nothing",
            );
        }
        let tools_used = (raw.into_iter().enumerate())
            .filter_map(|(i, m)| {
                m.validate(
                    check,
                    &format!("{path}.toolsUsed[{i}]"),
                    CallKind::Tool,
                    servers,
                )
            })
            .collect();
        AfterFault {
            retried: self.retried,
            tools_used,
        }
    }
}

/// Reports a `minToolCalls` greater than `maxToolCalls` (of the assertions at `path`),
/// which no run can pass.
fn check_call_bounds(check: &mut Checker<'_>, path: &str, min: Option<u32>, max: Option<u32>) {
    if let (Some(min), Some(max)) = (min, max)
        && min > max
    {
        check.error(
            format!("{path}.{}", AssertionKind::MinToolCalls),
            format!("minToolCalls ({min}) is greater than maxToolCalls ({max}); no run can pass"),
        );
    }
}

/// Validates the entries of `callOrder` of the assertions at `path`.
fn call_order(
    check: &mut Checker<'_>,
    path: &str,
    servers: Option<&[&str]>,
    raw: Vec<RawCallOrder>,
) -> Vec<OrderedCall> {
    (raw.into_iter().enumerate())
        .filter_map(|(i, entry)| {
            let at = format!("{path}.{}[{i}]", AssertionKind::CallOrder);
            entry.validate(check, &at, servers)
        })
        .collect()
}

/// Validates the entries of `skillsLoaded` / `skillsNotLoaded` written at `path`: each has
/// exactly one of `skill` and `skillPattern`.
fn skill_matchers(
    check: &mut Checker<'_>,
    path: &str,
    raw: Vec<RawSkillMatcher>,
) -> Vec<SkillMatcher> {
    raw.into_iter()
        .enumerate()
        .filter_map(|(i, entry)| {
            let at = format!("{path}[{i}]");
            match (entry.skill, entry.skill_pattern) {
                (Some(name), None) if !name.trim().is_empty() => Some(SkillMatcher::Name(name)),
                (None, Some(pattern)) => check
                    .regex(&format!("{at}.skillPattern"), &pattern)
                    .map(SkillMatcher::Pattern),
                _ => {
                    check.error(at, "expected exactly one of `skill` and `skillPattern`");
                    None
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::files::yaml::parse_str;

    /// `assertions` written as `yaml`, validated with the servers `demo` and `other`: the
    /// assertions, or the errors as `key path: message`.
    fn validate(yaml: &str) -> Result<Assertions, Vec<String>> {
        let file = Path::new("eval.yaml");
        let parsed =
            parse_str::<RawAssertions>(file, yaml).map_err(|e| vec![e.key_path.clone()])?;
        let mut check = Checker::new(file, &parsed.locations);
        let assertions = parsed
            .value
            .validate(&mut check, "a", Some(&["demo", "other"]));
        check.finish(assertions).map_err(|errors| {
            (errors.0.iter())
                .map(|e| format!("{}: {}", e.key_path, e.message))
                .collect()
        })
    }

    #[test]
    fn after_fault_reads_retried_and_tools_used_entries() {
        let a = validate(
            "afterFault:\n  retried: false\n  toolsUsed:\n    - {server: demo, toolPattern: ^echo, arguments: {text: {$type: string}}}\n",
        )
        .unwrap();
        let after = a.after_fault.as_ref().unwrap();
        assert_eq!(after.retried, Some(false));
        assert_eq!(
            after.tools_used[0].describe(),
            r#"demo/~^echo with arguments {"text":{"$type":"string"}}"#
        );
        assert_eq!(a.configured(), [AssertionKind::AfterFault]);
        let only_retried = validate("afterFault: {retried: true}\n").unwrap();
        assert_eq!(
            (only_retried.after_fault.as_ref())
                .map(|after| (after.retried, after.tools_used.len())),
            Some((Some(true), 0))
        );
    }

    #[test]
    fn after_fault_needs_retried_or_a_tools_used_entry() {
        let needs = "a.afterFault: expected `retried`, `toolsUsed` or both; an empty afterFault asserts nothing";
        assert_eq!(validate("afterFault: {}\n").unwrap_err(), [needs]);
        assert_eq!(
            validate("afterFault: {toolsUsed: []}\n").unwrap_err(),
            [needs]
        );
        assert_eq!(
            validate("afterFault: {retried: true, toolsUsed: [{server: demo, tool: x, uri: y}]}\n")
                .unwrap_err(),
            [
                "a.afterFault.toolsUsed[0].uri: `uri` does not belong in a tool entry; expected server, tool or toolPattern"
            ]
        );
    }
}
