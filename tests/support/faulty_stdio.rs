//! A stdio MCP server that fails on request: a small Python 3 script (python3 is on every
//! machine that runs the suite) with one tool per way of failing.
//!
//! - `echo {text}`: answers `echo: <text>`; `fail`: an `isError: true` result.
//! - `big {bytes}`: a text result of `bytes` bytes; `big_id_last {bytes}`: the same with
//!   the id written after the result; `big_id_middle {bytes}`: with the id between two
//!   halves of the line.
//! - `bad_utf8`: an answer with a byte that is not UTF-8 inside its JSON.
//! - `not_json`: an answer line that is not JSON.
//! - `crash {code}`: writes to stderr and exits with `code` while the call waits.
//! - any other tool: a JSON-RPC error (invalid params).
//!
//! With the argument `--exit-at-start` it writes to stderr and exits with code 4 before
//! reading anything. With `--list-fails error`, `--list-fails crash` or `--list-fails
//! garbage` it answers `tools/list` with a JSON-RPC error, exits with code 5 while the list
//! waits, or answers with a result that holds no tool list. With `--no-tools` its
//! `initialize` answer declares no `tools` capability.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mcpeval::proxy::Upstream;

const SCRIPT: &str = r#"
import json, os, sys

if "--exit-at-start" in sys.argv:
    sys.stderr.write("faulty server: cannot open its database\n")
    sys.exit(4)

out = sys.stdout.buffer

def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()

def text_result(id, text, is_error=False):
    send({"jsonrpc": "2.0", "id": id,
          "result": {"content": [{"type": "text", "text": text}], "isError": is_error}})

def xs(size):
    chunk = b"x" * (1 << 20)
    left = size
    while left > 0:
        out.write(chunk[:min(left, len(chunk))])
        left -= len(chunk)

def big(id, size, where):
    head = b'{"jsonrpc":"2.0",' + (b'"id":%d,' % id if where == "first" else b'')
    out.write(head + b'"result":{"content":[{"type":"text","text":"')
    if where == "middle":
        xs(size // 2)
        out.write(b'"}]},"id":%d,"pad":"' % id)
        xs(size - size // 2)
        out.write(b'"}\n')
    else:
        xs(size)
        out.write(b'"}]}' + (b',"id":%d}' % id if where == "last" else b'}') + b"\n")
    out.flush()

TOOLS = ["echo", "fail", "big", "big_id_last", "big_id_middle", "bad_utf8", "not_json", "crash"]

for line in sys.stdin.buffer:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {} if "--no-tools" in sys.argv else {"tools": {}},
            "serverInfo": {"name": "faulty", "version": "1"}}})
    elif method == "tools/list" and "--list-fails" in sys.argv:
        how = sys.argv[sys.argv.index("--list-fails") + 1]
        if how == "crash":
            sys.stderr.write("faulty server: its tool registry is corrupt\n")
            sys.stderr.flush()
            os._exit(5)
        elif how == "garbage":
            send({"jsonrpc": "2.0", "id": id, "result": {"tools": "none today"}})
        else:
            send({"jsonrpc": "2.0", "id": id,
                  "error": {"code": -32603, "message": "tool registry unavailable"}})
    elif method == "tools/list":
        tools = [{"name": name, "inputSchema": {"type": "object"}} for name in TOOLS]
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}})
    elif method == "tools/call":
        name = message["params"]["name"]
        args = message["params"].get("arguments") or {}
        if name == "echo":
            text_result(id, "echo: " + args.get("text", ""))
        elif name == "fail":
            text_result(id, "the tool failed on purpose", True)
        elif name.startswith("big"):
            big(id, int(args["bytes"]), {"big": "first", "big_id_last": "last"}.get(name, "middle"))
        elif name == "bad_utf8":
            out.write(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"caf\xe9"}]}}\n' % id)
            out.flush()
        elif name == "not_json":
            out.write(b'{"jsonrpc":"2.0","id":%d,"result":oops}\n' % id)
            out.flush()
        elif name == "crash":
            sys.stderr.write("faulty server: lost its connection pool\n")
            sys.stderr.flush()
            os._exit(int(args.get("code", 3)))
        else:
            send({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "no tool " + name}})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no " + method}})
"#;

/// Writes the script into `dir`; its path.
pub fn script(dir: &Path) -> PathBuf {
    let path = dir.join("faulty_server.py");
    std::fs::write(&path, SCRIPT).expect("write the faulty server script");
    path
}

/// The faulty server (written into `dir`) as a proxy's upstream.
pub fn upstream(dir: &Path, args: &[&str]) -> Upstream {
    let script = script(dir).display().to_string();
    Upstream::Stdio {
        command: "python3".into(),
        args: std::iter::once(script)
            .chain(args.iter().map(|arg| arg.to_string()))
            .collect(),
        env: vec![],
        cwd: None,
    }
}
