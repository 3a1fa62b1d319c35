//! What one ACP session tells the client, and the client's answers to the agent's requests:
//! `session/update` notifications kept as the answer (the last message) and the agent's
//! tool calls; `session/request_permission` answered by the allowed tools;
//! `fs/read_text_file` served inside the working directory only.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::ProxiedServer;
use crate::trace::AgentToolCall;

/// JSON-RPC: the method does not exist.
const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: invalid parameters.
const INVALID_PARAMS: i64 = -32602;
/// ACP: the resource (a file) was not found.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// One tool call of the agent, as its `tool_call` and `tool_call_update`s describe it.
#[derive(Debug, Clone, Default, PartialEq)]
struct AcpToolCall {
    id: String,
    title: Option<String>,
    /// The agent's own name of the tool (`_meta.claudeCode.toolName`), when it says it.
    tool_name: Option<String>,
    input: Value,
    status: Option<String>,
}

impl AcpToolCall {
    /// The name skill assertions match: the tool's own name, else its title (as mcpchecker).
    fn name(&self) -> String {
        self.tool_name
            .clone()
            .or_else(|| self.title.clone())
            .unwrap_or_default()
    }

    fn merge(&mut self, update: &Value) {
        if let Some(title) = update["title"].as_str() {
            self.title = Some(title.to_owned());
        }
        if let Some(name) = update["_meta"]["claudeCode"]["toolName"].as_str() {
            self.tool_name = Some(name.to_owned());
        }
        if let Some(input) = update.get("rawInput").filter(|input| !input.is_null()) {
            self.input = input.clone();
        }
        if let Some(status) = update["status"].as_str() {
            self.status = Some(status.to_owned());
        }
    }
}

/// What the session said so far, and what the client answered.
#[derive(Debug)]
pub(super) struct AcpSession {
    work_dir: PathBuf,
    servers: Vec<ProxiedServer>,
    /// The agent's messages, each the text of its chunks in a row.
    messages: Vec<String>,
    /// The last update was a message chunk: the next one continues that message.
    in_message: bool,
    tool_calls: Vec<AcpToolCall>,
    /// One line per notable event, in order, for failure messages.
    pub(super) transcript: Vec<String>,
    /// Tool calls the client refused, as `name input`.
    pub(super) denials: Vec<String>,
    /// `session/cancel` was sent: permission requests are answered `cancelled`.
    pub(super) cancelled: bool,
}

impl AcpSession {
    /// A session in `work_dir` whose agent may call the allowed tools of `servers`.
    pub(super) fn new(work_dir: &Path, servers: &[ProxiedServer]) -> Self {
        AcpSession {
            work_dir: work_dir.to_path_buf(),
            servers: servers.to_vec(),
            messages: Vec::new(),
            in_message: false,
            tool_calls: Vec::new(),
            transcript: Vec::new(),
            denials: Vec::new(),
            cancelled: false,
        }
    }

    /// The agent's answer: the text of its last message.
    pub(super) fn answer(&self) -> String {
        self.messages
            .last()
            .map(|message| message.trim().to_owned())
            .unwrap_or_default()
    }

    /// The agent's tool calls, in the order they began.
    pub(super) fn tool_calls(&self) -> Vec<AgentToolCall> {
        self.tool_calls
            .iter()
            .map(|call| AgentToolCall {
                name: call.name(),
                input: call.input.clone(),
            })
            .collect()
    }

    /// Takes in one `session/update` notification's `update`.
    pub(super) fn update(&mut self, update: &Value) {
        match update["sessionUpdate"].as_str().unwrap_or_default() {
            "agent_message_chunk" => {
                let text = update["content"]["text"].as_str().unwrap_or_default();
                match self.messages.last_mut() {
                    Some(message) if self.in_message => message.push_str(text),
                    _ => self.messages.push(text.to_owned()),
                }
                self.in_message = true;
            }
            kind @ ("tool_call" | "tool_call_update") => {
                self.in_message = false;
                let id = update["toolCallId"].as_str().unwrap_or_default();
                let call = self.tool_call(id);
                call.merge(update);
                if kind == "tool_call" || update.get("status").is_some() {
                    let line = format!(
                        "tool call {} {} → {}",
                        call.name(),
                        call.input,
                        call.status.as_deref().unwrap_or("pending")
                    );
                    self.transcript.push(line);
                }
            }
            // Thoughts, plans, commands, modes, usage: not part of the answer.
            _ => {}
        }
    }

    /// The tool call `id`, added when new.
    fn tool_call(&mut self, id: &str) -> &mut AcpToolCall {
        let index = match self.tool_calls.iter().position(|call| call.id == id) {
            Some(index) => index,
            None => {
                self.tool_calls.push(AcpToolCall {
                    id: id.to_owned(),
                    ..AcpToolCall::default()
                });
                self.tool_calls.len() - 1
            }
        };
        &mut self.tool_calls[index]
    }

    /// The answer to a request of the agent (`method` with `params`).
    pub(super) fn answer_request(
        &mut self,
        method: &str,
        params: &Value,
    ) -> Result<Value, (i64, String)> {
        match method {
            "session/request_permission" => Ok(self.permission(params)),
            "fs/read_text_file" => self.read_text_file(params),
            other => Err((
                METHOD_NOT_FOUND,
                format!("mcpeval's ACP client offers no `{other}`"),
            )),
        }
    }

    /// Allows a tool call when it names an allowed tool of a proxied server (the allow
    /// option, once rather than always), else rejects it; answers `cancelled` after
    /// `session/cancel`.
    fn permission(&mut self, params: &Value) -> Value {
        let request = &params["toolCall"];
        let id = request["toolCallId"].as_str().unwrap_or_default();
        let call = self.tool_call(id);
        call.merge(request);
        let call = call.clone();
        if self.cancelled {
            return json!({"outcome": {"outcome": "cancelled"}});
        }
        let names = [call.tool_name.as_deref(), call.title.as_deref()];
        let allowed = names
            .into_iter()
            .flatten()
            .any(|name| self.is_allowed(name));
        let kinds: &[&str] = if allowed {
            &["allow_once", "allow_always"]
        } else {
            &["reject_once", "reject_always"]
        };
        let options = params["options"].as_array().cloned().unwrap_or_default();
        let option = kinds.iter().find_map(|kind| {
            options
                .iter()
                .find(|option| option["kind"] == *kind)
                .and_then(|option| option["optionId"].as_str())
        });
        let verdict = if allowed {
            "allowed"
        } else {
            "rejected: not an allowed tool"
        };
        self.transcript.push(format!(
            "permission for {} {}: {verdict}",
            call.name(),
            call.input
        ));
        if !allowed {
            self.denials.push(format!("{} {}", call.name(), call.input));
        }
        match option {
            Some(option_id) => json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
            None => json!({"outcome": {"outcome": "cancelled"}}),
        }
    }

    /// Whether `name` (an ACP tool title or tool name) names an allowed tool: the tool's
    /// name itself, or `mcp__<server>__<tool>`, `<server>__<tool>`, `<server>/<tool>`,
    /// `<server>.<tool>`, `<server>:<tool>`.
    fn is_allowed(&self, name: &str) -> bool {
        self.servers.iter().any(|server| {
            let s = &server.name;
            server.allowed_tools.iter().any(|tool| {
                name == tool
                    || name == format!("mcp__{s}__{tool}")
                    || [("__"), "/", ".", ":"]
                        .iter()
                        .any(|sep| name == format!("{s}{sep}{tool}"))
            })
        })
    }

    /// The text of a file inside the working directory (`line`, 1-based, and `limit` cut
    /// it); any other path is refused.
    fn read_text_file(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let path = params["path"].as_str().unwrap_or_default();
        let answer = self.read_inside(path, params["line"].as_u64(), params["limit"].as_u64());
        let note = match &answer {
            Ok(_) => "served".to_owned(),
            Err((_, why)) => format!("refused: {why}"),
        };
        self.transcript
            .push(format!("fs/read_text_file {path}: {note}"));
        answer.map(|content| json!({"content": content}))
    }

    fn read_inside(
        &self,
        path: &str,
        line: Option<u64>,
        limit: Option<u64>,
    ) -> Result<String, (i64, String)> {
        if !Path::new(path).is_absolute() {
            return Err((INVALID_PARAMS, format!("`{path}` is not an absolute path")));
        }
        let outside = || {
            (
                INVALID_PARAMS,
                format!("`{path}` is outside the agent's working directory"),
            )
        };
        // Said before looking: whether a file outside exists is not the agent's business.
        if !lexical(Path::new(path)).starts_with(lexical(&self.work_dir)) {
            return Err(outside());
        }
        let resolved = std::fs::canonicalize(path)
            .map_err(|e| (RESOURCE_NOT_FOUND, format!("cannot open `{path}`: {e}")))?;
        let root = std::fs::canonicalize(&self.work_dir).map_err(|e| {
            (
                RESOURCE_NOT_FOUND,
                format!("cannot resolve the working directory: {e}"),
            )
        })?;
        // A symbolic link inside may point outside.
        if !resolved.starts_with(&root) {
            return Err(outside());
        }
        let text = std::fs::read_to_string(&resolved)
            .map_err(|e| (RESOURCE_NOT_FOUND, format!("cannot read `{path}`: {e}")))?;
        if line.is_none() && limit.is_none() {
            return Ok(text);
        }
        let skip = usize::try_from(line.unwrap_or(1).saturating_sub(1)).unwrap_or(usize::MAX);
        let take = limit
            .filter(|limit| *limit > 0)
            .map_or(usize::MAX, |limit| {
                usize::try_from(limit).unwrap_or(usize::MAX)
            });
        let lines: Vec<&str> = text.split('\n').skip(skip).take(take).collect();
        Ok(lines.join("\n"))
    }
}

/// `path` with `.` and `..` resolved by its text alone.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(dir: &Path) -> AcpSession {
        let servers = [ProxiedServer {
            name: "demo".into(),
            url: String::new(),
            allowed_tools: vec!["add".into()],
        }];
        AcpSession::new(dir, &servers)
    }

    const OPTIONS: &str = r#"[{"optionId":"always","kind":"allow_always"},{"optionId":"once","kind":"allow_once"},{"optionId":"no","kind":"reject_once"}]"#;

    fn permission(session: &mut AcpSession, title: &str) -> Value {
        let params = json!({"sessionId": "s", "options": serde_json::from_str::<Value>(OPTIONS).unwrap(),
            "toolCall": {"toolCallId": title, "title": title, "rawInput": {"a": 1}}});
        session
            .answer_request("session/request_permission", &params)
            .unwrap()
    }

    #[test]
    fn the_answer_is_the_last_message() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(dir.path());
        let chunk = |text: &str| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
        s.update(&chunk("Let me "));
        s.update(&chunk("add."));
        s.update(&json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "mcp__demo__add",
            "rawInput": {"a": 2}, "status": "pending", "_meta": {"claudeCode": {"toolName": "mcp__demo__add"}}}));
        s.update(&json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hm"}}));
        s.update(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}));
        s.update(&chunk("The sum "));
        s.update(&json!({"sessionUpdate": "plan", "entries": []}));
        s.update(&chunk("is 42."));
        assert_eq!(s.answer(), "The sum is 42.");
        let calls = s.tool_calls();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "mcp__demo__add");
        assert_eq!(calls[0].input, json!({"a": 2}));
        assert_eq!(
            s.transcript.last().unwrap(),
            "tool call mcp__demo__add {\"a\":2} → completed"
        );
    }

    #[test]
    fn permission_follows_the_allowed_tools() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(dir.path());
        for allowed in ["add", "mcp__demo__add", "demo/add", "demo__add"] {
            assert_eq!(
                permission(&mut s, allowed)["outcome"]["optionId"],
                "once",
                "{allowed}"
            );
        }
        for refused in [
            "delete_user",
            "mcp__demo__delete_user",
            "mcp__other__add",
            "add2",
            "Bash",
        ] {
            assert_eq!(
                permission(&mut s, refused)["outcome"]["optionId"],
                "no",
                "{refused}"
            );
        }
        assert_eq!(s.denials.len(), 5);
        s.cancelled = true;
        assert_eq!(permission(&mut s, "add")["outcome"]["outcome"], "cancelled");
    }

    #[test]
    fn files_are_served_inside_the_working_directory_only() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        std::fs::write(work.join("notes.txt"), "one\ntwo\nthree").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), work.join("link")).unwrap();
        let mut s = session(&work);
        let read = |s: &mut AcpSession, path: PathBuf, extra: Value| {
            let mut params = json!({"sessionId": "s", "path": path});
            params
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            s.answer_request("fs/read_text_file", &params)
        };
        assert_eq!(
            read(&mut s, work.join("notes.txt"), json!({})).unwrap()["content"],
            "one\ntwo\nthree"
        );
        assert_eq!(
            read(
                &mut s,
                work.join("notes.txt"),
                json!({"line": 2, "limit": 1})
            )
            .unwrap()["content"],
            "two"
        );
        for outside in [
            dir.path().join("secret.txt"),
            work.join("link"),
            work.join("../secret.txt"),
            work.join("../missing.txt"),
        ] {
            let (_, why) = read(&mut s, outside.clone(), json!({})).unwrap_err();
            assert!(
                why.contains("outside the agent's working directory"),
                "{outside:?}: {why}"
            );
        }
        assert!(read(&mut s, PathBuf::from("notes.txt"), json!({})).is_err());
        let (code, _) = s
            .answer_request("fs/write_text_file", &json!({}))
            .unwrap_err();
        assert_eq!(code, METHOD_NOT_FOUND);
    }
}
