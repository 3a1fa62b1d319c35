//! A run in a variant (`config.variants`): the rewrite each proxy makes of its server's tools
//! ([`tool_rewrite`]), what the rewrites did checked once the run is over ([`problems`]:
//! each fails the task), and what the results file says of the variant ([`details`],
//! [`decoy_calls`]).

use std::collections::BTreeMap;

use crate::config::{AssertionKind, Eval};
use crate::plan::AssertionSet;
use crate::proxy::{RewriteNotes, ToolPatch, ToolRewrite};
use crate::report::{AppliedOverride, DecoyCall, VariantDetails};
use crate::trace::{CallKind, CallTrace, ListKind};

/// What the proxy of `server` shows the agent of its tools in `eval`'s variant.
pub(crate) fn tool_rewrite(eval: &Eval, server: &str) -> ToolRewrite {
    let Some(variant) = &eval.variant else {
        return ToolRewrite::default();
    };
    let patches = (variant.tool_overrides.get(server).into_iter())
        .flatten()
        .map(|(tool, o)| {
            let patch = ToolPatch {
                title: o.title.clone(),
                description: o.description.clone(),
                properties: o.properties.clone(),
            };
            (tool.clone(), patch)
        })
        .collect();
    let decoys = (variant.decoys.get(server).into_iter())
        .flatten()
        .map(|decoy| {
            let mut tool = serde_json::Map::new();
            tool.insert("name".into(), decoy.name.clone().into());
            if let Some(description) = &decoy.description {
                tool.insert("description".into(), description.clone().into());
            }
            tool.insert("inputSchema".into(), decoy.input_schema.clone().into());
            tool
        })
        .collect();
    ToolRewrite { patches, decoys }
}

/// The decoy names of `server` in `eval`'s variant (added to an agent's allowed tools).
pub(crate) fn decoy_names(eval: &Eval, server: &str) -> Vec<String> {
    (eval.variant.iter())
        .flat_map(|variant| variant.decoys.get(server).into_iter().flatten())
        .map(|decoy| decoy.name.clone())
        .collect()
}

/// What fails a variant's run beyond the task's own checks: an override of a tool (or an
/// input-schema property) the server does not advertise, a decoy with the name of one of
/// the server's tools, and every call of a decoy (`decoy_calls`, see [`decoy_calls`]).
pub(crate) fn problems(
    eval: &Eval,
    notes: &BTreeMap<String, RewriteNotes>,
    decoy_calls: &[DecoyCall],
) -> Vec<String> {
    let Some(variant) = &eval.variant else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (server, tools) in &variant.tool_overrides {
        let Some(notes) = notes.get(server).filter(|n| !n.advertised.is_empty()) else {
            continue;
        };
        for tool in tools.keys().filter(|t| !notes.advertised.contains(*t)) {
            let advertised: Vec<&str> = notes.advertised.iter().map(String::as_str).collect();
            problems.push(format!(
                "variant `{}`: toolOverrides names tool `{tool}` of server `{server}`, which the server does not advertise (it advertises {})",
                variant.name,
                advertised.join(", ")
            ));
        }
        for property in &notes.missing_properties {
            problems.push(format!(
                "variant `{}`: toolOverrides changes property `{property}` of server `{server}`, which the tool's inputSchema does not have",
                variant.name
            ));
        }
    }
    for (server, notes) in notes {
        for name in &notes.decoy_conflicts {
            problems.push(format!(
                "variant `{}`: decoy `{name}` of server `{server}` has the name of a tool the server advertises, so it was not offered; give the decoy another name",
                variant.name
            ));
        }
    }
    for call in decoy_calls {
        problems.push(format!(
            "the agent called decoy tool `{}` of server `{}` (call {}); decoys are offered by variant `{}` and never do anything",
            call.tool, call.server, call.position, variant.name
        ));
    }
    problems
}

/// The calls of decoys in `trace` (those the proxy answered: not a tool of the server's
/// own of the same name).
pub(crate) fn decoy_calls(
    eval: &Eval,
    notes: &BTreeMap<String, RewriteNotes>,
    trace: &CallTrace,
) -> Vec<DecoyCall> {
    if eval.variant.is_none() {
        return Vec::new();
    }
    let conflict = |server: &str, name: &str| {
        notes
            .get(server)
            .is_some_and(|notes| notes.decoy_conflicts.contains(name))
    };
    (trace.calls.iter().enumerate())
        .filter(|(_, call)| call.kind == CallKind::Tool)
        .filter(|(_, call)| decoy_names(eval, &call.server).contains(&call.name))
        .filter(|(_, call)| !conflict(&call.server, &call.name))
        .map(|(index, call)| DecoyCall {
            server: call.server.clone(),
            tool: call.name.clone(),
            position: index + 1,
        })
        .collect()
}

/// The assertions on calls, which a run without servers skips (skill assertions are on the
/// agent's own tool calls, and still checked).
pub(crate) fn is_call_assertion(kind: AssertionKind) -> bool {
    !matches!(
        kind,
        AssertionKind::SkillsLoaded | AssertionKind::SkillsNotLoaded
    )
}

/// The call assertions of `sets` a run of `eval` skips: all of them when its variant gives
/// the agent no server, else none.
pub(crate) fn skipped_assertions(eval: &Eval, sets: &[AssertionSet]) -> Vec<String> {
    if !eval.variant.as_ref().is_some_and(|v| v.no_servers) {
        return Vec::new();
    }
    let mut skipped: Vec<String> = Vec::new();
    let kinds = sets.iter().flat_map(|set| set.assertions.configured());
    for kind in kinds.filter(|kind| is_call_assertion(*kind)) {
        let key = kind.key().to_owned();
        if !skipped.contains(&key) {
            skipped.push(key);
        }
    }
    skipped
}

/// What the results file says of the variant of a run.
pub(crate) fn details(
    eval: &Eval,
    notes: &BTreeMap<String, RewriteNotes>,
    skipped_assertions: &[String],
) -> Option<VariantDetails> {
    let variant = eval.variant.as_ref()?;
    let baseline = (eval.variants.iter())
        .find(|v| v.baseline)
        .map_or_else(|| variant.name.clone(), |v| v.name.clone());
    let applied =
        |server: &str, tool: &str| notes.get(server).is_some_and(|n| n.patched.contains(tool));
    Some(VariantDetails {
        baseline,
        tool_overrides: overrides(eval, &applied),
        decoys: variant.decoy_names(),
        no_servers: variant.no_servers,
        skipped_assertions: skipped_assertions.to_vec(),
    })
}

/// The tool overrides of `eval`'s variant, each with whether `applied(server, tool)`.
fn overrides(eval: &Eval, applied: &dyn Fn(&str, &str) -> bool) -> Vec<AppliedOverride> {
    let overrides = eval.variant.iter().flat_map(|v| &v.tool_overrides);
    overrides
        .flat_map(|(server, tools)| {
            tools.iter().map(move |(tool, o)| AppliedOverride {
                server: server.clone(),
                tool: tool.clone(),
                fields: o.fields(),
                applied: applied(server, tool),
            })
        })
        .collect()
}

/// `trace.json` as verify scripts read it: the trace, and in a variant a `variant` object
/// with its name and its `toolOverrides` (as the results file's `variantDetails` has them:
/// applied when a `tools/list` answer the agent received held the tool).
pub(crate) fn trace_json(eval: &Eval, trace: &CallTrace) -> String {
    let Some(variant) = &eval.variant else {
        return trace.to_json_pretty();
    };
    let listed = |server: &str, tool: &str| {
        (trace.advertised.get(server))
            .is_some_and(|advertised| advertised.names(ListKind::Tools).iter().any(|t| t == tool))
    };
    let note = serde_json::json!({
        "name": variant.name,
        "toolOverrides": overrides(eval, &listed),
    });
    match serde_json::to_value(trace) {
        Ok(serde_json::Value::Object(mut object)) => {
            object.insert("variant".into(), note);
            // Plain data: printing it cannot fail.
            serde_json::to_string_pretty(&object).unwrap_or_else(|_| trace.to_json_pretty())
        }
        _ => trace.to_json_pretty(),
    }
}
