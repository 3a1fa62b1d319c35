//! A started extension: `initialize` done, its manifest and the compiled schemas of its
//! operations at hand, operations run one at a time (as mcpchecker does), each bounded by the
//! extension's timeout, and `shutdown` at the end.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::{Instant, timeout, timeout_at};

use super::error::ExtensionError;
use super::protocol::{
    AgentContext, ExecuteContext, ExecuteParams, ExecuteResult, InitializeParams, Manifest,
    PROTOCOL_VERSION,
};
use super::rpc::{ExtensionLaunch, RpcProcess};
use crate::plumbing::json_schema::{JsonSchema, describe_violations};

/// How long `shutdown` may take to be answered, and the process to exit after it.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// A running extension that answered `initialize`.
pub struct ExtensionClient {
    rpc: RpcProcess,
    manifest: Manifest,
    schemas: BTreeMap<String, Result<JsonSchema, String>>,
    /// Operations run one at a time, so that `log` notifications belong to the one running.
    turn: tokio::sync::Mutex<()>,
    timeout: Duration,
}

impl std::fmt::Debug for ExtensionClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionClient")
            .field("name", &self.manifest.name)
            .field("version", &self.manifest.version)
            .finish_non_exhaustive()
    }
}

/// One `execute`: what it runs and for which step.
pub struct Execute<'a> {
    /// The operation.
    pub operation: &'a str,
    /// Its arguments.
    pub args: &'a Value,
    /// The task file's directory.
    pub workdir: String,
    /// `setup`, `verify` or `cleanup`.
    pub phase: &'static str,
    /// The prompt and the agent's answer, in verify.
    pub agent: Option<(&'a str, &'a str)>,
}

/// What an `execute` produced: its result or why there is none, and the logs meanwhile.
#[derive(Debug)]
pub struct Execution {
    /// The result, or why it could not be had.
    pub outcome: Result<ExecuteResult, ExtensionError>,
    /// The `log` notifications that came meanwhile (and any left from before).
    pub logs: Vec<String>,
}

impl ExtensionClient {
    /// Starts the program and initializes it with `config`, within `bound`; a program that
    /// fails to is stopped.
    pub async fn start(
        launch: &ExtensionLaunch<'_>,
        config: Option<&Map<String, Value>>,
        bound: Duration,
    ) -> Result<Self, ExtensionError> {
        let rpc = RpcProcess::spawn(launch)?;
        match initialize(&rpc, config, bound).await {
            Ok(manifest) => {
                let schemas = manifest
                    .operations
                    .iter()
                    .map(|(name, op)| (name.clone(), compile(&op.params)))
                    .collect();
                Ok(ExtensionClient {
                    rpc,
                    manifest,
                    schemas,
                    turn: tokio::sync::Mutex::new(()),
                    timeout: bound,
                })
            }
            Err(error) => {
                rpc.stop(Duration::ZERO).await;
                Err(error)
            }
        }
    }

    /// Its manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Whether `args` suit `operation`: it exists and they match its schema.
    pub fn check_args(&self, operation: &str, args: &Value) -> Result<(), String> {
        let Some(schema) = self.schemas.get(operation) else {
            let names: Vec<&str> = self.schemas.keys().map(String::as_str).collect();
            return Err(format!(
                "the extension has no operation `{operation}`; it has {}{}",
                names.join(", "),
                crate::config::did_you_mean(operation, names.iter().copied())
            ));
        };
        let schema = schema.as_ref().map_err(|e| {
            format!("the extension declares an invalid schema for `{operation}`: {e}")
        })?;
        let violations = schema.violations(args);
        if violations.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the arguments do not match the operation's schema:\n{}",
                describe_violations(&violations)
            ))
        }
    }

    /// Runs an operation within the extension's timeout (waiting for an operation of
    /// another task counts).
    pub async fn execute(&self, request: Execute<'_>) -> Execution {
        let bound = self.timeout;
        let params = ExecuteParams {
            operation: request.operation,
            args: request.args,
            context: ExecuteContext {
                workdir: request.workdir,
                phase: request.phase,
                timeout: go_duration(bound),
                agent: request
                    .agent
                    .map(|(prompt, output)| AgentContext { prompt, output }),
            },
        };
        let params = serde_json::to_value(&params).unwrap_or_default();
        let run = async {
            let _turn = self.turn.lock().await;
            let answer = self.rpc.call("execute", &params).await?;
            serde_json::from_value::<ExecuteResult>(answer).map_err(|e| ExtensionError::BadAnswer {
                method: "execute".into(),
                detail: e.to_string(),
            })
        };
        let outcome = timeout_at(Instant::now() + bound, run)
            .await
            .unwrap_or_else(|_| {
                Err(ExtensionError::Timeout {
                    what: format!("the operation `{}`", request.operation),
                    after: humantime::format_duration(bound).to_string(),
                })
            });
        Execution {
            outcome,
            logs: self.rpc.take_logs(),
        }
    }

    /// Sends `shutdown` and stops the process; a note when it did not go cleanly.
    pub async fn shutdown(&self) -> Option<String> {
        let answered = timeout(SHUTDOWN_WAIT, self.rpc.call("shutdown", &json!({}))).await;
        // One that cannot answer any more (it exited, it broke the protocol) is not waited for.
        let grace = match &answered {
            Ok(Err(ExtensionError::Gone(_))) => Duration::ZERO,
            _ => SHUTDOWN_WAIT,
        };
        let ended = self.rpc.stop(grace).await;
        match answered {
            Ok(Ok(_)) if ended == "exited with exit code 0" => None,
            Ok(Ok(_)) => Some(format!("answered `shutdown`, then {ended}")),
            Ok(Err(e)) => Some(format!("did not answer `shutdown` ({e}); it {ended}")),
            Err(_) => Some(format!(
                "did not answer `shutdown` within {}s; it {ended}",
                SHUTDOWN_WAIT.as_secs()
            )),
        }
    }
}

async fn initialize(
    rpc: &RpcProcess,
    config: Option<&Map<String, Value>>,
    bound: Duration,
) -> Result<Manifest, ExtensionError> {
    let params = InitializeParams {
        protocol_version: PROTOCOL_VERSION,
        config,
    };
    let params = serde_json::to_value(&params).unwrap_or_default();
    let answer = timeout(bound, rpc.call("initialize", &params))
        .await
        .map_err(|_| ExtensionError::Timeout {
            what: "`initialize`".into(),
            after: humantime::format_duration(bound).to_string(),
        })??;
    serde_json::from_value(answer).map_err(|e| ExtensionError::BadAnswer {
        method: "initialize".into(),
        detail: e.to_string(),
    })
}

/// An operation's schema compiled; an absent one accepts any arguments.
fn compile(params: &Value) -> Result<JsonSchema, String> {
    match params {
        Value::Null => JsonSchema::compile(&json!({})),
        schema => JsonSchema::compile(schema),
    }
}

/// A duration as Go writes one: `300s`, `1500ms`.
fn go_duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}
