use std::collections::BTreeMap;

use super::super::totals::Summary;
use super::*;
use crate::report::results::{CallHistory, CallRecord, ToolTokens};
use crate::tokens::ServerTokens;

fn tool_call(position: usize, name: &str, tokens: Option<usize>) -> CallRecord {
    CallRecord {
        position,
        result_tokens: tokens,
        ..CallRecord::succeeded("demo", name)
    }
}

fn run(test: &str, definitions: usize, calls: Vec<CallRecord>) -> TaskResult {
    let counted: Vec<usize> = calls.iter().filter_map(|c| c.result_tokens).collect();
    let figures = ServerTokens {
        tools: 5,
        definition_tokens: definitions,
        tool_calls: counted.len(),
        result_tokens: counted.iter().sum(),
        biggest_result_tokens: counted.iter().copied().max().unwrap_or(0),
    };
    TaskResult {
        test_name: test.into(),
        tool_tokens: Some(ToolTokens {
            tokenizer: "o200k_base".into(),
            servers: BTreeMap::from([("demo".to_owned(), figures)]),
        }),
        call_history: CallHistory {
            tool_calls: calls,
            ..CallHistory::default()
        },
        ..TaskResult::default()
    }
}

#[test]
fn the_biggest_results_of_all_runs_come_first() {
    let results = [
        run(
            "e::a",
            170,
            vec![
                tool_call(1, "echo", Some(12)),
                tool_call(2, "add", Some(1_500)),
            ],
        ),
        run(
            "e::b",
            168,
            vec![
                tool_call(1, "lookup_user", Some(300)),
                tool_call(3, "echo", Some(12)),
            ],
        ),
    ];
    let summary = tool_tokens(&results).unwrap();
    let biggest: Vec<(&str, &str, usize, usize)> = (summary.biggest_results.iter())
        .map(|r| (r.test_name.as_str(), r.tool.as_str(), r.call, r.tokens))
        .collect();
    assert_eq!(
        biggest,
        [
            ("e::a", "add", 2, 1_500),
            ("e::b", "lookup_user", 1, 300),
            ("e::a", "echo", 1, 12),
            ("e::b", "echo", 3, 12),
        ]
    );
    assert_eq!(
        summary.servers["demo"],
        ServerTokenSummary {
            definition_tokens: 170,
            tools: 5,
            tool_calls: 4,
            result_tokens: 1_824,
            biggest_result_tokens: 1_500,
        }
    );
    assert_eq!(
        summary.render(),
        [
            "tool tokens (o200k_base) of demo: definitions 170 (5 tools); results 1,824 in 4 calls, biggest 1,500",
            "biggest tool results (o200k_base tokens):",
            "  1,500  e::a demo/add call #2",
            "    300  e::b demo/lookup_user call #1",
            "     12  e::a demo/echo call #1",
            "     12  e::b demo/echo call #3",
        ]
    );
}

#[test]
fn the_summary_names_at_most_ten_results() {
    let calls = (1..=12).map(|i| tool_call(i, "echo", Some(i))).collect();
    let summary = tool_tokens(&[run("e::a", 1, calls)]).unwrap();
    assert_eq!(summary.biggest_results.len(), BIGGEST_RESULTS);
    assert_eq!(summary.biggest_results[0].tokens, 12);
    assert_eq!(summary.biggest_results[9].tokens, 3);
}

#[test]
fn results_files_without_tool_tokens_still_load_and_add_nothing() {
    // A results file written before tokens were counted.
    let old = serde_json::json!({
        "testName": "e::old", "evalName": "e", "taskName": "old", "taskPath": "t.yaml",
        "taskPassed": true, "taskOutput": "", "reasons": [], "timedOut": false,
        "agentExecutionError": false, "difficulty": "", "assertionResults": {},
        "allAssertionsPassed": true,
        "callHistory": {"toolCalls": [{"serverName": "demo", "name": "echo", "position": 1,
            "arguments": null, "outcome": "ok", "result": {}, "startOffsetMs": 0, "durationMs": 1}],
            "resourceReads": [], "promptGets": []},
        "setupOutput": {"success": true, "steps": []},
        "agentOutput": {"success": true, "steps": []},
        "verifyOutput": {"success": true, "steps": []},
        "cleanupOutput": {"success": true, "steps": []},
        "tokenEstimate": {"promptTokens": 1, "outputTokens": 1}, "durationMs": 5
    });
    let old: TaskResult = serde_json::from_value(old).unwrap();
    assert_eq!(tool_tokens(std::slice::from_ref(&old)), None);
    let summary = Summary::of(&[old]);
    assert_eq!(summary.tool_tokens, None);
    assert!(!summary.render().contains("tool tokens"));
}
