//! The real Claude Code's recorded runs through every fault kind (`evals/claude-code-faults`).

use std::collections::BTreeSet;
use std::path::Path;

use mcpeval::fault::FaultAction;
use mcpeval::trace::FaultKind;
use serde_json::Value;

/// The tool results of a recorded conversation, in order, as Claude Code passed them to the
/// model: whether each was an error (`is_error`), and its text.
fn recorded_tool_results(cassette: &Path) -> Vec<(bool, String)> {
    let text = std::fs::read_to_string(cassette).unwrap_or_else(|e| panic!("{cassette:?}: {e}"));
    let cassette: Value = serde_json::from_str(&text).unwrap();
    let resolve = |value: &Value| match value["$blob"].as_str() {
        Some(hash) => cassette["blobs"][hash].clone(),
        None => value.clone(),
    };
    let last = cassette["interactions"].as_array().unwrap().last().unwrap();
    let messages = last["request"]["normalized"]["messages"]
        .as_array()
        .unwrap();
    let blocks = messages
        .iter()
        .map(resolve)
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default());
    let text_of = |content: &Value| match content {
        Value::String(text) => text.clone(),
        content => (content.as_array().into_iter().flatten())
            .filter_map(|part| part["text"].as_str())
            .collect(),
    };
    blocks
        .filter(|block| block["type"] == "tool_result")
        .map(|block| (block["is_error"] == true, text_of(&block["content"])))
        .collect()
}

/// The tool names Claude Code offered the model in any request of `cassette`.
fn offered_tools(cassette: &Path) -> BTreeSet<String> {
    let cassette: Value =
        serde_json::from_str(&std::fs::read_to_string(cassette).unwrap()).unwrap();
    let tools = (cassette["interactions"].as_array().into_iter().flatten()).map(|interaction| {
        let tools = &interaction["request"]["normalized"]["tools"];
        match tools["$blob"].as_str() {
            Some(hash) => cassette["blobs"][hash].clone(),
            None => tools.clone(),
        }
    });
    let tools: Vec<Value> = tools.collect();
    (tools
        .iter()
        .flat_map(|tools| tools.as_array().cloned().unwrap_or_default()))
    .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
    .collect()
}

/// The real Claude Code through every fault kind (`evals/claude-code-faults`, replayed by
/// `cargo test --test evals`): each task's fault hits the first `add` call, and its
/// committed cassette holds what Claude Code passed to the model: the injected error's text
/// and then the retry's real answer, or the task's replacement, or the server's answer (a
/// delay, a tool-list change). An eval that stopped injecting could not have recorded them.
#[test]
fn the_claude_code_faults_eval_recorded_each_fault_as_the_model_saw_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/claude-code-faults");
    let lookup = |name: &str| (name == "MCPEVAL_BIN").then(|| env!("CARGO_BIN_EXE_mcpeval").into());
    let eval = mcpeval::config::load_eval_with(&dir.join("eval.yaml"), &lookup).unwrap();
    let plan = mcpeval::plan::plan_eval(eval).unwrap();
    let mut kinds = BTreeSet::new();
    let mut places = BTreeSet::new();
    for case in &plan.cases {
        let task = case.load(&plan.eval).unwrap();
        let rules = (case.assertion_sets.iter())
            .flat_map(|set| set.faults.iter())
            .chain(&task.faults);
        let mut first_call = rules.filter(|rule| rule.matches("demo", "tools/call", Some("add")));
        let rule = (first_call.find(|rule| rule.fires(1, 0, &case.name)))
            .unwrap_or_else(|| panic!("{}: no rule hits the first add call", case.name));
        kinds.insert(rule.action.kind());
        places.insert(rule.key_path.split('[').next().unwrap().to_owned());
        let stem = format!("{}__{}", plan.eval.name, case.task_name(&plan.eval));
        let cassette = dir.join(format!("cassettes/{stem}.json"));
        let results = recorded_tool_results(&cassette);
        let answer = (false, "42".to_owned());
        let failed_then_retried = |says: &str| {
            assert_eq!(results.len(), 2, "{stem}: {results:?}");
            let (is_error, text) = &results[0];
            assert!(*is_error && text.contains(says), "{stem}: {results:?}");
            assert_eq!(results[1], answer, "{stem}: the retry's answer");
        };
        match &rule.action {
            FaultAction::Error { message, .. } => failed_then_retried(message),
            FaultAction::ToolError(text) => failed_then_retried(text),
            // Claude Code's own words for what it met.
            FaultAction::Timeout => failed_then_retried("tool \"add\" timed out after 5s"),
            FaultAction::Disconnect => failed_then_retried("ECONNRESET"),
            FaultAction::Malformed => failed_then_retried("could not be parsed"),
            FaultAction::Replace(result) => {
                let text = result["content"][0]["text"].as_str().unwrap().to_owned();
                assert_eq!(results, [(false, text)], "{stem}");
            }
            FaultAction::Delay(_) => assert_eq!(results, [answer], "{stem}"),
            FaultAction::ToolsChanged(change) => {
                assert_eq!(results, [answer], "{stem}");
                // Claude Code lists the tools again some 30 ms after the notification: too
                // late for its next request, the last one of the script. (A longer script
                // sees the added tool offered from the request after that.)
                let offered = offered_tools(&cassette);
                for tool in &change.add {
                    let name = format!("mcp__demo__{}", tool["name"].as_str().unwrap());
                    assert!(!offered.contains(&name), "{stem}: {name} offered");
                }
            }
            // The user's answers hit elicitations, never this tool call.
            FaultAction::Decline | FaultAction::Cancel => {
                panic!("{stem}: a user's answer hit a tool call")
            }
        }
    }
    let every_kind = [
        FaultKind::Error,
        FaultKind::ToolError,
        FaultKind::Delay,
        FaultKind::Timeout,
        FaultKind::Disconnect,
        FaultKind::Malformed,
        FaultKind::Replace,
        FaultKind::ToolsChanged,
    ];
    assert_eq!(kinds, BTreeSet::from(every_kind));
    assert_eq!(
        places,
        BTreeSet::from(["config.taskSets".into(), "spec.faults".into()])
    );
}
