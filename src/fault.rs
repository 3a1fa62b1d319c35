//! Faults on purpose, as data: a task's `faults` rules (validated by `config`, carried
//! out by the proxy) and which call of a run each one hits.
//!
//! A rule says where (`server`, and `tool` or `method`), when (`call: N`, `calls`, `every`
//! or `probability` with the run's seed) and what (one [`FaultAction`]). Whether the n-th
//! matching call of a rule is hit is a pure function of the rule and the seed
//! ([`FaultRule::fires`]), so a run with the same seed injects the same faults.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::trace::FaultKind;

/// The variable that sets the seed of `probability` rules. Unset, the seed is 0: the same
/// faults every run, which keeps recorded cassettes replayable.
pub const SEED_VARIABLE: &str = "MCPEVAL_SEED";

/// One `faults` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    /// Where it is written: `config.taskSets[0].faults[1]` (the eval file) or
    /// `spec.faults[0]` (the task file). The trace names a rule by it.
    pub key_path: String,
    /// The server whose calls it hits; every server's when `None`.
    pub server: Option<String>,
    /// Which calls.
    pub target: FaultTarget,
    /// Which of the matching calls.
    pub when: FaultWhen,
    /// What the agent gets instead.
    pub action: FaultAction,
}

/// Which calls a rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultTarget {
    /// `tool: NAME`: `tools/call` of this tool.
    Tool(String),
    /// `method: M`: every request of this MCP method, e.g. `resources/read`.
    Method(String),
}

/// Which of a rule's matching calls it hits (counted from 1 per rule and run).
#[derive(Debug, Clone, PartialEq)]
pub enum FaultWhen {
    /// `call: N`.
    Call(u32),
    /// `calls: [N, …]`.
    Calls(Vec<u32>),
    /// `every: true`.
    Every,
    /// `probability: P`: each matching call with probability P, drawn from the seed.
    Probability(f64),
}

/// What a rule does to a call it hits.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultAction {
    /// `error: {code, message}`: a JSON-RPC error.
    Error {
        /// The JSON-RPC code.
        code: i32,
        /// The message.
        message: String,
    },
    /// `toolError: TEXT`: a tool result with `isError: true` and this text.
    ToolError(String),
    /// `delay: 2s`: the server's answer, this much later.
    Delay(Duration),
    /// `timeout: true`: no answer until the agent gives up (or the task's timeout).
    Timeout,
    /// `disconnect: true`: the session ends and the HTTP connection closes.
    Disconnect,
    /// `malformed: true`: HTTP 200 with a body that is not JSON-RPC.
    Malformed,
    /// `replace: {…}`: this result instead of the server's.
    Replace(Value),
    /// `toolsChanged: {add, remove}`: after this call (answered by the server), the tool
    /// list changes and the agent is told.
    ToolsChanged(ToolsChange),
    /// `decline: true` (`method: elicitation/create`): the user declines this elicitation,
    /// whatever the task's `elicitation` rules say.
    Decline,
    /// `cancel: true` (`method: elicitation/create`): the user dismisses it.
    Cancel,
}

/// How a `toolsChanged` rule changes a server's tool list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolsChange {
    /// Tool definitions added (one with a server tool's name replaces its definition).
    pub add: Vec<Map<String, Value>>,
    /// Names of tools removed; calling one afterwards is an "unknown tool" error.
    pub remove: Vec<String>,
}

/// The server's request a `method` rule may name besides [`METHODS`]: the user is asked
/// (`decline`, `cancel`, or `timeout`: never answered).
pub const ELICITATION: &str = "elicitation/create";

/// The MCP methods of the agent's requests a `method` rule may name.
pub const METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

impl FaultAction {
    /// The kind, as the trace names it.
    pub fn kind(&self) -> FaultKind {
        match self {
            FaultAction::Error { .. } => FaultKind::Error,
            FaultAction::ToolError(_) => FaultKind::ToolError,
            FaultAction::Delay(_) => FaultKind::Delay,
            FaultAction::Timeout => FaultKind::Timeout,
            FaultAction::Disconnect => FaultKind::Disconnect,
            FaultAction::Malformed => FaultKind::Malformed,
            FaultAction::Replace(_) => FaultKind::Replace,
            FaultAction::ToolsChanged(_) => FaultKind::ToolsChanged,
            FaultAction::Decline => FaultKind::Decline,
            FaultAction::Cancel => FaultKind::Cancel,
        }
    }
}

impl FaultRule {
    /// Whether a request of `method` (a tool call's tool `name`) to `server` is one this
    /// rule counts.
    pub fn matches(&self, server: &str, method: &str, name: Option<&str>) -> bool {
        if self.server.as_deref().is_some_and(|s| s != server) {
            return false;
        }
        match &self.target {
            FaultTarget::Tool(tool) => method == "tools/call" && name == Some(tool.as_str()),
            FaultTarget::Method(m) => m == method,
        }
    }

    /// Whether the `n`-th matching call (from 1) is hit, given the run's `seed` and the
    /// test's name (so that the tasks of one seed draw differently).
    pub fn fires(&self, n: u32, seed: u64, test: &str) -> bool {
        match &self.when {
            FaultWhen::Call(k) => n == *k,
            FaultWhen::Calls(ks) => ks.contains(&n),
            FaultWhen::Every => true,
            FaultWhen::Probability(p) => draw(seed, test, &self.key_path, n) < *p,
        }
    }

    /// `server` `tool`/`method` as a message names the rule's target.
    pub fn describe_target(&self) -> String {
        let target = match &self.target {
            FaultTarget::Tool(tool) => format!("tool `{tool}`"),
            FaultTarget::Method(method) => format!("method `{method}`"),
        };
        match &self.server {
            Some(server) => format!("{target} of server `{server}`"),
            None => target,
        }
    }
}

/// A number in [0, 1) drawn from the seed, the test, the rule and the call's number: the
/// same inputs, the same number (FNV-1a over the inputs, then SplitMix64's finalizer).
fn draw(seed: u64, test: &str, rule: &str, n: u32) -> f64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = (seed.to_le_bytes().into_iter())
        .chain(test.bytes())
        .chain([0])
        .chain(rule.bytes())
        .chain([0])
        .chain(n.to_le_bytes());
    for byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut z = hash.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The seed of a run: `MCPEVAL_SEED` as given (`value`), 0 when unset.
pub fn seed_of(value: Option<&str>) -> Result<u64, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(0),
        Some(text) => text.parse().map_err(|_| {
            format!(
                "{SEED_VARIABLE}={text:?} is not a seed; expected a whole number from 0 to {}",
                u64::MAX
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(when: FaultWhen) -> FaultRule {
        FaultRule {
            key_path: "config.taskSets[0].faults[0]".into(),
            server: Some("demo".into()),
            target: FaultTarget::Tool("add".into()),
            when,
            action: FaultAction::Timeout,
        }
    }

    #[test]
    fn a_rule_matches_its_server_and_tool_or_method() {
        let tool = rule(FaultWhen::Every);
        assert!(tool.matches("demo", "tools/call", Some("add")));
        assert!(!tool.matches("demo", "tools/call", Some("echo")));
        assert!(!tool.matches("other", "tools/call", Some("add")));
        assert!(!tool.matches("demo", "tools/list", None));
        let method = FaultRule {
            server: None,
            target: FaultTarget::Method("resources/read".into()),
            ..tool
        };
        assert!(method.matches("any", "resources/read", None));
        assert!(!method.matches("any", "tools/call", Some("add")));
    }

    #[test]
    fn when_picks_the_calls() {
        assert!(rule(FaultWhen::Call(2)).fires(2, 0, "t"));
        assert!(!rule(FaultWhen::Call(2)).fires(1, 0, "t"));
        assert!(rule(FaultWhen::Calls(vec![1, 3])).fires(3, 0, "t"));
        assert!(!rule(FaultWhen::Calls(vec![1, 3])).fires(2, 0, "t"));
        assert!(rule(FaultWhen::Every).fires(7, 0, "t"));
    }

    #[test]
    fn probability_is_reproduced_by_its_seed_and_near_its_rate() {
        let half = rule(FaultWhen::Probability(0.5));
        let hits =
            |seed: u64| -> Vec<bool> { (1..=2000).map(|n| half.fires(n, seed, "t")).collect() };
        assert_eq!(hits(7), hits(7), "the same seed, the same faults");
        assert_ne!(hits(7), hits(8), "another seed, other faults");
        let rate = hits(7).iter().filter(|hit| **hit).count() as f64 / 2000.0;
        assert!((0.45..0.55).contains(&rate), "{rate}");
        assert!((1..=200).all(|n| !rule(FaultWhen::Probability(0.0)).fires(n, 1, "t")));
        assert!((1..=200).all(|n| rule(FaultWhen::Probability(1.0)).fires(n, 1, "t")));
        let other_test: Vec<bool> = (1..=2000).map(|n| half.fires(n, 7, "u")).collect();
        assert_ne!(hits(7), other_test, "each test draws its own");
    }

    #[test]
    fn the_seed_comes_from_the_variable() {
        assert_eq!(seed_of(None), Ok(0));
        assert_eq!(seed_of(Some(" 42 ")), Ok(42));
        assert!(
            seed_of(Some("x"))
                .unwrap_err()
                .contains("MCPEVAL_SEED=\"x\"")
        );
    }
}
