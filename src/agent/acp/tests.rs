use super::*;
use crate::agent::test_runs::with_empty_path;

#[test]
fn usage_comes_from_the_prompt_answer() {
    let acp = json!({"stopReason": "end_turn", "usage": {"inputTokens": 100, "outputTokens": 20,
        "cachedReadTokens": 5, "cachedWriteTokens": 0, "totalTokens": 125}});
    let usage = prompt_usage(&acp).unwrap();
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens
        ),
        (105, 20, 125)
    );
    let meta = json!({"stopReason": "end_turn", "_meta": {"usage": {"input_tokens": 7, "output_tokens": 3}}});
    let usage = prompt_usage(&meta).unwrap();
    assert_eq!((usage.prompt_tokens, usage.total_tokens), (7, 10));
    assert!(prompt_usage(&json!({"stopReason": "end_turn"})).is_none());
}

#[tokio::test]
async fn a_missing_program_fails_the_run_naming_where_it_comes_from() {
    let claude = AcpAgent::claude_code(None, None);
    let outcome = with_empty_path(async |run| run_acp_agent(&claude, run).await).await;
    assert!(!outcome.passed());
    assert_eq!(
        outcome.reason(),
        "`claude-agent-acp` is not on PATH: builtin.claude-code over ACP runs through Claude \
         Code's ACP adapter, install it with \
         `npm install -g @agentclientprotocol/claude-agent-acp@0.49.0`"
    );
    let own = AcpAgent {
        name: "mine".into(),
        cmd: "my-acp-agent".into(),
        program: None,
        claude_code: false,
        ..claude
    };
    let outcome = with_empty_path(async |run| run_acp_agent(&own, run).await).await;
    assert_eq!(
        outcome.reason(),
        "`my-acp-agent` (acp.cmd of the Agent file) is not on PATH"
    );
}

#[test]
fn the_version_is_the_agent_info() {
    let info = json!({"name": "@agentclientprotocol/claude-agent-acp", "title": "Claude Agent", "version": "0.49.0"});
    assert_eq!(
        version_of(&info).as_deref(),
        Some("@agentclientprotocol/claude-agent-acp 0.49.0")
    );
}
