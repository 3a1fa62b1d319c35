use regex::Regex;
use serde_json::{Value, json};

use super::*;

fn normalizer(api: LlmApi) -> RequestNormalizer {
    let paths = [
        PathMask::new("CWD", "/tmp/run-1/.tmpAbC123/"),
        PathMask::new("HOME", "/home/tester"),
    ];
    let ignore = [Regex::new(r"req_[0-9a-f]{8}").unwrap()];
    RequestNormalizer::new(api, &paths, &ignore)
}

/// One string as a user message, normalised.
fn text_rule(api: LlmApi, text: &str) -> String {
    let body = json!({"messages": [{"role": "user", "content": text}]});
    let normalized = normalizer(api).normalize(&body);
    normalized["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn text_rules() {
    use LlmApi::*;
    let cases = [
        (Anthropic, "cwd /tmp/run-1/.tmpAbC123/src", "cwd <CWD>/src"),
        (
            Anthropic,
            "home /home/tester/.claude",
            "home <HOME>/.claude",
        ),
        (
            Anthropic,
            "memory <x>/projects/-tmp-run-1--tmpAbC123/memory",
            "memory <x>/projects/<CWD_SLUG>/memory",
        ),
        (
            Gemini,
            "tmp dir ~/.gemini/tmp/.tmpabc123",
            "tmp dir ~/.gemini/tmp/<CWD_BASENAME>",
        ),
        (
            Gemini,
            "tmp dir ~/.gemini/tmp/tmpabc123/memory",
            "tmp dir ~/.gemini/tmp/<CWD_BASENAME>/memory",
        ),
        (Gemini, "home is /home/tester", "home is <HOME>"),
        (Gemini, "not /home/testers", "not /home/testers"),
        (
            Anthropic,
            "Today's date is 2026-11-23.",
            "Today's date is <DATE>.",
        ),
        (
            Gemini,
            "Today is Monday, November 23, 2026.",
            "Today is <DATE>.",
        ),
        (
            OpenAiResponses,
            "<current_date>2026-11-23</current_date>",
            "<current_date><DATE></current_date>",
        ),
        (
            Anthropic,
            " - Platform: darwin\n - OS Version: Darwin 25.1.0\n - Shell: bash",
            " - Platform: <PLATFORM>\n - OS Version: <OS_VERSION>\n - Shell: bash",
        ),
        (
            Gemini,
            "Today's date is x.\nMy operating system is: darwin\nThe project's",
            "Today's date is x.\nMy operating system is: <PLATFORM>\nThe project's",
        ),
        (OpenAiChat, "Platform: linux", "Platform: linux"),
        (
            Anthropic,
            "cc_version=2.1.330.ca2; cc_entrypoint=sdk-cli",
            "cc_version=2.1.330.<SUFFIX>; cc_entrypoint=sdk-cli",
        ),
        (
            OpenAiChat,
            "cc_version=2.1.330.ca2",
            "cc_version=2.1.330.ca2",
        ),
        (
            OpenAiResponses,
            "Wall time: 0.0037 seconds\nOutput:",
            "Wall time: <N> seconds\nOutput:",
        ),
        (
            Anthropic,
            "Wall time: 0.0037 seconds",
            "Wall time: 0.0037 seconds",
        ),
        (
            OpenAiChat,
            "request req_0123abcd done",
            "request <IGNORED> done",
        ),
        (
            OpenAiChat,
            "a uuid 5f0c6c1e-6d2b-4d55-9a8e-3c1f2b7e9a10 stays",
            "a uuid 5f0c6c1e-6d2b-4d55-9a8e-3c1f2b7e9a10 stays",
        ),
    ];
    for (api, text, expected) in cases {
        assert_eq!(text_rule(api, text), expected, "{api}: {text:?}");
    }
}

#[test]
fn field_rules() {
    use LlmApi::*;
    let cases = [
        (
            Anthropic,
            json!({"model": "m", "metadata": {"user_id": "device"}, "messages": []}),
            json!({"model": "m", "messages": []}),
        ),
        (
            OpenAiResponses,
            json!({"client_metadata": {"installation_id": "x"}, "prompt_cache_key": "k",
                   "input": [{"id": "msg_1", "type": "message", "role": "user", "content": []},
                             {"id": "fc_1", "type": "function_call", "call_id": "call_9", "name": "add"},
                             {"id": "fco_1", "type": "function_call_output", "call_id": "call_9", "output": "5"}]}),
            json!({"input": [{"type": "message", "role": "user", "content": []},
                             {"type": "function_call", "call_id": "<ID1>", "name": "add"},
                             {"type": "function_call_output", "call_id": "<ID1>", "output": "5"}]}),
        ),
        (
            OpenAiChat,
            json!({"metadata": {"kept": true}, "messages": [
                {"role": "assistant", "tool_calls": [{"id": "call_a", "function": {"name": "f"}},
                                                     {"id": "call_b", "function": {"name": "g"}}]},
                {"role": "tool", "tool_call_id": "call_b", "content": "1"},
                {"role": "tool", "tool_call_id": "call_a", "content": "2"}]}),
            json!({"metadata": {"kept": true}, "messages": [
                {"role": "assistant", "tool_calls": [{"id": "<ID1>", "function": {"name": "f"}},
                                                     {"id": "<ID2>", "function": {"name": "g"}}]},
                {"role": "tool", "tool_call_id": "<ID2>", "content": "1"},
                {"role": "tool", "tool_call_id": "<ID1>", "content": "2"}]}),
        ),
        (
            Anthropic,
            json!({"messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "{\"id\": \"row-7\", \"at\": \"2026-11-23\"}"}]}]}]}),
            json!({"messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "id": "<ID1>", "name": "add", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "<ID1>",
                    "content": [{"type": "text", "text": "{\"id\": \"row-7\", \"at\": \"2026-11-23\"}"}]}]}]}),
        ),
        (
            Gemini,
            json!({"contents": [
                {"role": "model", "parts": [{"functionCall": {"id": "mcp_srv_add_1763900000000_0", "name": "add", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"id": "mcp_srv_add_1763900000000_0", "name": "add",
                    "response": {"id": "server-id", "date": "2026-11-23"}}}]}],
                "tools": [{"functionDeclarations": [{"name": "add", "description": "Since 2026-01-01", "parameters": {"properties": {"id": {"type": "string"}}}}]}]}),
            json!({"contents": [
                {"role": "model", "parts": [{"functionCall": {"id": "<ID1>", "name": "add", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"id": "<ID1>", "name": "add",
                    "response": {"id": "server-id", "date": "2026-11-23"}}}]}],
                "tools": [{"functionDeclarations": [{"name": "add", "description": "Since 2026-01-01", "parameters": {"properties": {"id": {"type": "string"}}}}]}]}),
        ),
    ];
    for (api, body, expected) in cases {
        assert_eq!(
            normalizer(api).normalize(&body),
            expected,
            "{api}: {body:#}"
        );
    }
}

#[test]
fn tool_results_keep_paths_masked_but_nothing_else() {
    let body = json!({"messages": [{"role": "tool", "tool_call_id": "c",
        "content": "Monday, November 23, 2026 in /home/tester/x, id req_0123abcd"}]});
    let normalized = normalizer(LlmApi::OpenAiChat).normalize(&body);
    assert_eq!(
        normalized["messages"][0]["content"],
        "Monday, November 23, 2026 in <HOME>/x, id <IGNORED>"
    );
}

fn key_of(api: LlmApi, body: &Value) -> String {
    request_key("POST", "/v1/messages", &normalizer(api).normalize(body))
}

fn claude_turn(cwd: &str, date: &str, result: &str) -> Value {
    json!({"model": "claude", "metadata": {"user_id": format!("{cwd}-device")},
        "system": [{"type": "text", "text": format!("Primary working directory: {cwd}\nToday's date is {date}.")}],
        "messages": [
            {"role": "user", "content": "add 2 and 3"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_x", "name": "add", "input": {"a": 2, "b": 3}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": result}]}]})
}

#[test]
fn a_changed_tool_result_changes_the_key() {
    let recorded = key_of(
        LlmApi::Anthropic,
        &claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "5"),
    );
    let changed = key_of(
        LlmApi::Anthropic,
        &claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "6"),
    );
    assert_ne!(recorded, changed);
    let dated = key_of(
        LlmApi::Anthropic,
        &claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "on 2026-11-23"),
    );
    let redated = key_of(
        LlmApi::Anthropic,
        &claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "on 2026-11-24"),
    );
    assert_ne!(
        dated, redated,
        "dates in a tool result are the server's answer"
    );
}

#[test]
fn another_run_dir_and_date_give_the_same_key() {
    let first = key_of(
        LlmApi::Anthropic,
        &claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "5"),
    );
    let other = RequestNormalizer::new(
        LlmApi::Anthropic,
        &[PathMask::new("CWD", "/var/tmp/.tmpZZZ999")],
        &[],
    );
    let second = request_key(
        "POST",
        "/v1/messages",
        &other.normalize(&claude_turn("/var/tmp/.tmpZZZ999", "2027-01-02", "5")),
    );
    assert_eq!(first, second);
}

#[test]
fn claude_codes_date_change_note_leaves_the_key_alone() {
    let plain = claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "5");
    let note = "<system-reminder>\nThe date has changed. Today's date is now 2026-11-24. No need to announce the new date \u{2014} the user's own clock shows it.\n</system-reminder>";
    // As a block of its own beside the tool result, and as a message of its own.
    let mut beside = plain.clone();
    beside["messages"][2]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "text", "text": note}));
    let mut alone = plain.clone();
    alone["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "user", "content": note}));
    let key = key_of(LlmApi::Anthropic, &plain);
    assert_eq!(key_of(LlmApi::Anthropic, &beside), key);
    assert_eq!(key_of(LlmApi::Anthropic, &alone), key);
    // Inside a text with more in it, the rest stays.
    let mut inside = plain.clone();
    inside["messages"][0]["content"] = json!(format!("{note}\nadd 2 and 3"));
    let normalized = normalizer(LlmApi::Anthropic).normalize(&inside);
    assert_eq!(normalized["messages"][0]["content"], "\nadd 2 and 3");
    // The same words in a tool result are the server's answer: they stay.
    let mut other = plain.clone();
    other["messages"][2]["content"][0]["content"] = json!(note);
    assert_ne!(key_of(LlmApi::Anthropic, &other), key);
}

#[test]
fn the_key_ignores_key_order_but_not_method_or_path() {
    let a = request_key("POST", "/p", &json!({"a": 1, "b": [1, {"c": 2, "d": 3}]}));
    let b = request_key("POST", "/p", &json!({"b": [1, {"d": 3, "c": 2}], "a": 1}));
    assert_eq!(a, b);
    assert_ne!(
        a,
        request_key("POST", "/q", &json!({"a": 1, "b": [1, {"c": 2, "d": 3}]}))
    );
    assert!(a.starts_with("sha256:") && a.len() == 7 + 64, "{a}");
}

#[test]
fn key_params_leave_the_path() {
    let cases = [
        ("/v1/messages", None, "/v1/messages"),
        ("/v1/messages", Some("beta=true"), "/v1/messages?beta=true"),
        (
            "/m:streamGenerateContent",
            Some("alt=sse&key=AIza-secret"),
            "/m:streamGenerateContent?alt=sse",
        ),
        (
            "/m:generateContent",
            Some("key=AIza-secret"),
            "/m:generateContent",
        ),
    ];
    for (path, query, expected) in cases {
        assert_eq!(without_key_param(path, query), expected);
    }
}

#[test]
fn a_path_is_not_masked_inside_an_xml_closing_tag() {
    // Codex writes `<workspace_roots><root>CWD</root>`; with HOME=/root the closing tag
    // must stay as it is, or a cassette recorded there diverges where HOME differs.
    let normalizer = RequestNormalizer::new(
        LlmApi::OpenAiResponses,
        &[
            PathMask::new("CWD", "/tmp/work"),
            PathMask::new("HOME", "/root"),
        ],
        &[],
    );
    let body = json!({"input": [{"content": [{"text": "<root>/tmp/work</root> in /root/x"}]}]});
    assert_eq!(
        normalizer.normalize(&body)["input"][0]["content"][0]["text"],
        "<root><CWD></root> in <HOME>/x"
    );
}

#[test]
fn an_exact_path_mask_masks_the_path_only() {
    let install = "/opt/peers/node_modules/@google/gemini-cli";
    let normalizer = RequestNormalizer::new(
        LlmApi::Gemini,
        &[PathMask::exact("AGENT_INSTALL", install)],
        &[],
    );
    let text = format!("{install}/bundle/SKILL.md extends gemini-cli");
    let body = json!({"contents": [{"parts": [{"text": text}]}]});
    assert_eq!(
        normalizer.normalize(&body)["contents"][0]["parts"][0]["text"],
        "<AGENT_INSTALL>/bundle/SKILL.md extends gemini-cli"
    );
}

#[test]
fn a_repeated_gemini_function_response_leaves_the_key_alone() {
    let response = |output: &str| {
        json!({"functionResponse": {"name": "mcp_deploy_create", "id": "mcp_deploy_create_1_0",
            "response": {"output": output}}})
    };
    let turn = |parts: Vec<Value>| {
        json!({"contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "mcp_deploy_create", "id": "mcp_deploy_create_1_0"}}]},
            {"role": "user", "parts": parts},
        ]})
    };
    let once = key_of(LlmApi::Gemini, &turn(vec![response("created")]));
    let thrice = turn(vec![
        response("created"),
        response("created"),
        response("created"),
    ]);
    assert_eq!(key_of(LlmApi::Gemini, &thrice), once);
    // Another answer is not a repetition; nor is the same answer in another API.
    let two = turn(vec![response("created"), response("created again")]);
    assert_ne!(key_of(LlmApi::Gemini, &two), once);
    let twice = turn(vec![response("created"), response("created")]);
    assert_ne!(
        key_of(LlmApi::OpenAiChat, &twice),
        key_of(LlmApi::OpenAiChat, &turn(vec![response("created")]))
    );
}

#[test]
fn claude_codes_resumed_session_note_leaves_the_key_alone() {
    let plain = claude_turn("/tmp/run-1/.tmpAbC123", "2026-11-23", "5");
    let note = "Continue from where you left off.";
    let mut beside = plain.clone();
    beside["messages"][2]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "text", "text": note}));
    let key = key_of(LlmApi::Anthropic, &plain);
    assert_eq!(key_of(LlmApi::Anthropic, &beside), key);
    // A user's prompt that says more, and the words as a server's answer, stay.
    let mut prompt = plain.clone();
    prompt["messages"][0]["content"] = json!(format!("{note} Then add 2 and 3."));
    assert_ne!(key_of(LlmApi::Anthropic, &prompt), key);
    let mut answer = plain.clone();
    answer["messages"][2]["content"][0]["content"] = json!(note);
    assert_ne!(key_of(LlmApi::Anthropic, &answer), key);
}
