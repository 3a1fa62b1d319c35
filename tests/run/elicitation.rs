//! Servers that ask back, as their authors test them: `mcpeval check` runs the script agent
//! against a server of ours that asks its user to confirm a delete (form mode) and to sign
//! in (URL mode) (tests/fixtures/elicitation/server.py), and each task's scripted user
//! (`elicitation:` rules) answers. Accept deletes and decline keeps, each asserted; an
//! elicitation no rule answers and content the requested schema refuses fail the run, naming
//! what the server asked and the property; `unmatched: agent` relays to the agent; without
//! rules the proxy declares nothing the agent does not. Bad rules are load errors at their
//! key paths.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::cli::{failure_of, mcpeval, result_file, text};
use support::results_schema::violations;

fn result(output: &Path, task: &str) -> Value {
    let result = result_file(output, &format!("asking__{task}"));
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    result
}

/// The text of the `n`-th tool call's result (from 0).
fn answer(result: &Value, n: usize) -> &str {
    result["callHistory"]["toolCalls"][n]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no tool call #{n}: {result:#}"))
}

fn elicitations(result: &Value) -> Vec<Value> {
    (result["callHistory"]["elicitations"].as_array().cloned()).unwrap_or_default()
}

#[test]
fn the_scripted_user_answers_and_each_answer_is_recorded_and_asserted() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &[
            "check",
            "tests/fixtures/elicitation/eval.yaml",
            "--",
            "--skip",
            "asking::sample",
        ],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 8 passed; 4 failed;"),
        "{stdout}"
    );

    // Accept deletes: the task's own rule answered (before the set's decline), with its
    // content, and the server saw the capability it needs although the agent declares none.
    let accept = result(output.path(), "accept");
    assert_eq!(accept["taskPassed"], true, "{accept:#}");
    assert_eq!(answer(&accept, 0), "deleted notes.txt");
    assert_eq!(answer(&accept, 1), "todo.txt");
    let asked = &elicitations(&accept)[0];
    assert_eq!(asked["server"], "files");
    assert_eq!(asked["mode"], "form");
    assert_eq!(asked["message"], "Delete notes.txt?");
    assert_eq!(asked["requestedSchema"]["required"][0], "confirm");
    assert_eq!(asked["during"]["name"], "delete_file");
    assert_eq!(asked["during"]["position"], 1);
    assert_eq!(asked["answeredBy"], "script");
    assert_eq!(asked["rule"], "spec.elicitation.rules[0]");
    assert_eq!(asked["action"], "accept");
    assert_eq!(
        asked["content"],
        serde_json::json!({"confirm": true, "reason": "old"})
    );
    assert!(asked.get("failure").is_none(), "{asked:#}");

    // Decline keeps, answered by the task set's rule.
    let decline = result(output.path(), "decline");
    assert_eq!(decline["taskPassed"], true, "{decline:#}");
    assert_eq!(answer(&decline, 0), "kept notes.txt (decline)");
    assert_eq!(answer(&decline, 1), "notes.txt, todo.txt");
    assert_eq!(
        elicitations(&decline)[0]["rule"],
        "config.taskSets[1].elicitation.rules[0]"
    );

    // A URL-mode elicitation, accepted without content.
    let url = result(output.path(), "url");
    assert_eq!(url["taskPassed"], true, "{url:#}");
    assert_eq!(answer(&url, 0), "signed in");
    assert_eq!(elicitations(&url)[0]["url"], "https://example.test/login");

    // A read that never asks holds `noElicitation`; a delete that asks breaks it.
    assert_eq!(result(output.path(), "read")["taskPassed"], true);
    let must_not = failure_of(&stdout, "asking::delete-must-not-ask");
    assert!(
        must_not.contains("noElicitation (config.taskSets[4]):\n      expected: no elicitation\n      actual:   elicitations: files during tool delete_file (form \"Delete todo.txt?\" → accept)"),
        "{must_not}"
    );
    assert!(
        must_not.contains("  #1 tool files/delete_file {\"path\":\"todo.txt\"} → ok")
            && must_not.contains(
                "       asked: form \"Delete todo.txt?\" → accept (config.taskSets[4].elicitation.rules[0])"
            ),
        "{must_not}"
    );

    // No rule answers: the run fails naming what the server asked; the server got cancel.
    let unmatched = failure_of(&stdout, "asking::unmatched");
    assert!(
        unmatched.contains("elicitation: no `elicitation` rule answers server `files` (form) \"Delete notes.txt?\" during tool `delete_file`, properties confirm, reason"),
        "{unmatched}"
    );
    assert!(
        unmatched.contains("asked: form \"Delete notes.txt?\" → cancel, failed (unmatched)"),
        "{unmatched}"
    );
    assert_eq!(
        answer(&result(output.path(), "unmatched"), 0),
        "kept notes.txt (cancel)"
    );

    // Content the requested schema refuses: the run fails naming the property.
    let bad_type = failure_of(&stdout, "asking::bad-type");
    assert!(
        bad_type.contains("elicitation: spec.elicitation.rules[0]: the content does not satisfy the server's requested schema:")
            && bad_type.contains("/confirm"),
        "{bad_type}"
    );
    let unknown = failure_of(&stdout, "asking::unknown-property");
    assert!(
        unknown.contains("elicitation: spec.elicitation.rules[0]: property `because` is not in the server's requested schema (it has: confirm, reason)"),
        "{unknown}"
    );
    let failed = result(output.path(), "unknown-property");
    assert!(
        (failed["reasons"].as_array().unwrap().iter()).any(|reason| reason
            .as_str()
            .unwrap()
            .starts_with("elicitation: spec.elicitation.rules[0]: property `because`")),
        "{failed:#}"
    );

    // `unmatched: agent`: relayed to the agent (the script agent declines), recorded as
    // its answer; not a failure.
    let relayed = result(output.path(), "relayed");
    assert_eq!(relayed["taskPassed"], true, "{relayed:#}");
    assert_eq!(answer(&relayed, 0), "kept notes.txt (decline)");
    let asked = &elicitations(&relayed)[0];
    assert_eq!(asked["answeredBy"], "agent");
    assert_eq!(asked["action"], "decline");
    assert!(asked.get("rule").is_none(), "{asked:#}");

    // Without `elicitation:` the server sees the agent's own capabilities (none here), so it
    // cannot ask: the proxy declares elicitation only for a scripted user.
    let unscripted = result(output.path(), "unscripted");
    assert_eq!(
        answer(&unscripted, 0),
        "cannot delete: this client cannot ask its user"
    );
    assert!(elicitations(&unscripted).is_empty());

    // Faults on `elicitation/create`: the first question declined whatever the rules say
    // (the second answered by them), and a question never answered until the server gives
    // up; each marked with its rule. A fault alone makes the proxy declare elicitation.
    let declined = result(output.path(), "fault-decline");
    assert_eq!(declined["taskPassed"], true, "{declined:#}");
    assert_eq!(answer(&declined, 0), "kept notes.txt (decline)");
    assert_eq!(answer(&declined, 1), "deleted notes.txt");
    let asked = elicitations(&declined);
    assert_eq!(
        asked[0]["injected"],
        serde_json::json!({"fault": "decline", "rule": "spec.faults[0]"})
    );
    assert_eq!(asked[0]["action"], "decline");
    assert!(asked[1].get("injected").is_none(), "{asked:#?}");
    assert_eq!(asked[1]["rule"], "spec.elicitation.rules[0]");
    let never = result(output.path(), "fault-never");
    assert_eq!(
        answer(&never, 0),
        "kept notes.txt (no answer from the user)"
    );
    let asked = &elicitations(&never)[0];
    assert_eq!(asked["injected"]["fault"], "timeout");
    assert!(asked.get("action").is_none(), "{asked:#}");
}

fn sampling(result: &Value) -> Vec<Value> {
    (result["callHistory"]["sampling"].as_array().cloned()).unwrap_or_default()
}

#[test]
fn the_scripted_model_answers_sampling_and_the_proxy_gives_the_roots() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &[
            "check",
            "tests/fixtures/elicitation/eval.yaml",
            "--",
            "asking::sample",
        ],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("test result: FAILED. 2 passed; 1 failed;"),
        "{stdout}"
    );

    // The task's rule replies, with its model, to a server that samples although the agent
    // declares no sampling; the roots are the agent's working directory, answered by the
    // proxy for the same reason.
    let sample = result(output.path(), "sample");
    assert_eq!(sample["taskPassed"], true, "{sample:#}");
    assert_eq!(
        answer(&sample, 0),
        "summary: Two text files. (scripted-haiku)"
    );
    let roots = answer(&sample, 1);
    assert!(
        roots.starts_with("roots: file:///") && roots.contains("asking__sample"),
        "{roots}"
    );
    let asked = &sampling(&sample)[0];
    assert_eq!(asked["server"], "files");
    assert_eq!(
        asked["messages"],
        serde_json::json!(["Summarise: notes.txt, todo.txt"])
    );
    assert_eq!(asked["systemPrompt"], "You summarise file lists.");
    assert_eq!(asked["during"]["name"], "summarize");
    assert_eq!(asked["during"]["position"], 1);
    assert_eq!(asked["answeredBy"], "script");
    assert_eq!(asked["rule"], "spec.sampling.rules[0]");
    assert_eq!(asked["reply"], "Two text files.");
    assert_eq!(asked["model"], "scripted-haiku");
    assert!(asked.get("failure").is_none(), "{asked:#}");

    // No rule answers: the server gets an error, the run fails naming what it asked, and
    // the failure message shows the request under its call.
    let unmatched = failure_of(&stdout, "asking::sample-unmatched");
    assert!(
        unmatched.contains("sampling: no `sampling` rule answers server `files` \"Summarise: notes.txt, todo.txt\" during tool `summarize`"),
        "{unmatched}"
    );
    assert!(
        unmatched
            .contains("sampled: \"Summarise: notes.txt, todo.txt\" → no reply, failed (unmatched)"),
        "{unmatched}"
    );
    let failed = result(output.path(), "sample-unmatched");
    assert!(
        answer(&failed, 0).starts_with("not summarised (no `sampling` rule answers"),
        "{failed:#}"
    );

    // `unmatched: decline`: the server hears the user's refusal; the run goes on.
    let declined = result(output.path(), "sample-declined");
    assert_eq!(declined["taskPassed"], true, "{declined:#}");
    assert_eq!(
        answer(&declined, 0),
        "not summarised (User rejected sampling request)"
    );
    assert_eq!(sampling(&declined)[0]["declined"], true);
}

#[test]
fn bad_elicitation_rules_and_entries_are_load_errors_at_their_key_paths() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/elicitation");
    for file in ["agent.yaml", "mcp.yaml", "server.py"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let eval = |elicitation: &str, assertions: &str| {
        format!(
            "kind: Eval\nmetadata: {{name: asking}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
             mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: task.yaml\n{elicitation}{assertions}"
        )
    };
    let task = |elicitation: &str| {
        format!(
            "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: task}}\nspec:\n{elicitation}  \
             prompt: {{inline: hi}}\n"
        )
    };
    // The eval's errors (its task files are read once it loads).
    let bad_set = "      elicitation:\n        unmatched: ignore\n        rules:\n          \
        - {server: fils, action: accept}\n      sampling:\n        unmatched: cancel\n        \
        rules:\n          - {server: fils, reply: x}\n";
    let bad_assertions = "      assertions:\n        elicitations:\n          \
        - {mode: forms, message: \"(\"}\n        maxElicitations: -1\n        callOrder:\n          \
        - {type: elicitation, server: files, name: delete_file, arguments: {a: 1}}\n";
    let bad_task = "  elicitation:\n    rules:\n      - {tool: delete_file, action: accpet}\n      \
        - {action: decline, content: {confirm: true}}\n      \
        - {mode: url, action: accept, content: {a: 1}}\n      \
        - {action: accept, content: {nested: {a: 1}}}\n      - {tool: delete_file}\n  \
        faults:\n    - {tool: delete_file, call: 1, decline: true}\n    \
        - {method: elicitation/create, call: 1, toolError: no}\n  sampling:\n    rules:\n      \
        - {tool: summarize}\n      - {message: \"[\", reply: x}\n      \
        - {reply: x, stopReason: done}\n      - {reply: x, llm: judge}\n      \
        - {llm: gpt}\n";
    let eval_file = dir.path().join("eval.yaml");
    let validate = |eval_text: String, task_text: String| {
        std::fs::write(&eval_file, eval_text).unwrap();
        std::fs::write(dir.path().join("task.yaml"), task_text).unwrap();
        let out = mcpeval(&["validate", eval_file.to_str().unwrap()], None);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!out.status.success(), "{all}");
        all
    };
    let all =
        validate(eval(bad_set, bad_assertions), task("")) + &validate(eval("", ""), task(bad_task));
    for expected in [
        "config.taskSets[0].elicitation.unmatched: expected one of fail, decline, cancel, agent; got \"ignore\"",
        "config.taskSets[0].elicitation.rules[0].server: unknown server `fils`; the MCP config has files",
        "config.taskSets[0].assertions.elicitations[0].mode: expected one of form, url; got \"forms\"",
        "config.taskSets[0].assertions.elicitations[0].message: invalid regular expression \"(\"",
        "config.taskSets[0].assertions.maxElicitations: must be 0 or more, found -1",
        "config.taskSets[0].assertions.callOrder[0].arguments: an elicitation entry has no arguments",
        "spec.elicitation.rules[0].action: expected one of accept, decline, cancel; got \"accpet\"",
        "did you mean accept?",
        "spec.elicitation.rules[1].content: only an `accept` fills in content; this rule says `decline`",
        "spec.elicitation.rules[2].content: a URL-mode elicitation is accepted without content",
        "spec.elicitation.rules[3].content.nested: expected a string, a number, a boolean or a list of strings",
        "spec.elicitation.rules[4].action: a rule needs `action`: accept, decline or cancel",
        "spec.faults[0].decline: `decline` answers a server's elicitation; expected `method: elicitation/create`",
        "spec.faults[1].toolError: a rule on `elicitation/create` answers for the user; expected decline, cancel or timeout (never answered), not `toolError`",
        "config.taskSets[0].sampling.unmatched: expected one of fail, decline, agent; got \"cancel\"",
        "config.taskSets[0].sampling.rules[0].server: unknown server `fils`; the MCP config has files",
        "spec.sampling.rules[0].reply: a rule needs `reply` (the text the model answers with) or `llm: judge` (the eval's judge model answers)",
        "spec.sampling.rules[1].message: invalid regular expression \"[\"",
        "spec.sampling.rules[2].stopReason: expected one of endTurn, stopSequence, maxTokens, toolUse; got \"done\"",
        "spec.sampling.rules[3].llm: a rule has `reply` or `llm`, not both",
        "spec.sampling.rules[4].llm: expected one of judge; got \"gpt\"",
    ] {
        assert!(all.contains(expected), "lacks {expected:?}:\n{all}");
    }
}
