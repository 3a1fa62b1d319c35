//! An MCP server that answers `initialize` with the protocol version it is told to: a small
//! Python 3 script (like `faulty_stdio.rs`), over stdio or streamable HTTP.
//!
//! - `--version V`: answers every `initialize` with `V`, whatever the client asked.
//! - `--echo`: answers with the version the client asked for.
//! - `--discover`: a 2026-07-28 server as rmcp 3.11 builds one: it answers `server/discover`
//!   (every known version), and `initialize` with the client's version when that version
//!   has an `initialize` handshake, else with 2025-11-25.
//! - `--http`: serves streamable HTTP on `127.0.0.1` (a free port) instead of stdio, and
//!   prints its URL as the first line on stdout. A session's requests must carry the
//!   negotiated version in `MCP-Protocol-Version` when they carry the header at all; under
//!   2026-07-28 and later they must also carry the standard headers of that protocol
//!   (`Mcp-Method`, the body's method; `Mcp-Name`, a call's tool name), or are refused (400).
//!
//! Tools: `add {a, b}` answers `a + b = sum`, `echo {text}` answers the text. `ping` is
//! answered, notifications are ignored. Once it answered a version without a handshake
//! (2026-07-28 and later), every request must carry that version in its `_meta`
//! (`io.modelcontextprotocol/protocolVersion`), as that protocol wants, or it is refused.
//! It writes each handshake to stderr.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const SCRIPT: &str = r#"
import json, sys, uuid

KNOWN = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
NO_INITIALIZE = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
NUMBER = {"type": "number"}
TOOLS = [
    {"name": "add", "description": "Adds two numbers",
     "inputSchema": {"type": "object", "properties": {"a": NUMBER, "b": NUMBER},
                     "required": ["a", "b"]}},
    {"name": "echo", "description": "Echoes its text",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"]}},
]

args = sys.argv[1:]
ECHO = "--echo" in args
DISCOVER = "--discover" in args
VERSION = args[args.index("--version") + 1] if "--version" in args else None

def has_initialize(version):
    return version < NO_INITIALIZE

def answered_version(requested):
    if ECHO:
        return requested
    if DISCOVER:
        return requested if requested in KNOWN and has_initialize(requested) else "2025-11-25"
    return VERSION

def number(value):
    return int(value) if float(value).is_integer() else value

def result(id, value):
    return {"jsonrpc": "2.0", "id": id, "result": value}

def error(id, code, message):
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}

def text(id, value):
    return result(id, {"content": [{"type": "text", "text": value}]})

def handle(message, session):
    """The answer to `message` (None for a notification); `session` holds its version."""
    id, method = message.get("id"), message.get("method")
    if id is None:
        return None
    params = message.get("params") or {}
    if method == "initialize":
        requested = params.get("protocolVersion")
        session["version"] = answered_version(requested)
        sys.stderr.write("initialize: asked %s, answered %s\n" % (requested, session["version"]))
        sys.stderr.flush()
        return result(id, {"protocolVersion": session["version"],
                           "capabilities": {"tools": {}},
                           "serverInfo": {"name": "versioned", "version": "1"}})
    if method == "server/discover":
        if not DISCOVER:
            return error(id, -32601, "no server/discover: use initialize")
        return result(id, {"resultType": "complete", "supportedVersions": KNOWN,
                           "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public",
                           "_meta": {"io.modelcontextprotocol/serverInfo":
                                     {"name": "versioned", "version": "1"}}})
    version = session.get("version")
    if version is not None and not has_initialize(version):
        inline = (params.get("_meta") or {}).get(META_VERSION)
        if inline != version:
            return error(id, -32602, "%s needs _meta %s: %s, got %r"
                         % (method, META_VERSION, version, inline))
    if method == "ping":
        return result(id, {})
    if method == "tools/list":
        return result(id, {"tools": TOOLS})
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "add":
            a, b = number(arguments.get("a", 0)), number(arguments.get("b", 0))
            return text(id, "%s + %s = %s" % (a, b, number(a + b)))
        if name == "echo":
            return text(id, str(arguments.get("text", "")))
        return error(id, -32602, "no tool %s" % name)
    return error(id, -32601, "no method %s" % method)

def serve_stdio():
    session = {}
    for line in sys.stdin:
        answer = handle(json.loads(line), session)
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()

def missing_standard_header(headers, message, version):
    """What a request of a 2026-07-28 (or later) session lacks of the standard headers."""
    method = message.get("method")
    if method is None or version is None or has_initialize(version):
        return None
    if headers.get("Mcp-Method") != method:
        return "Mcp-Method %r does not match the method %r" % (headers.get("Mcp-Method"), method)
    name = (message.get("params") or {}).get("name")
    if method == "tools/call" and headers.get("Mcp-Name") != name:
        return "Mcp-Name %r does not match the tool %r" % (headers.get("Mcp-Name"), name)
    return None

def serve_http():
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    sessions = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body=b"", kind="text/plain", session=None):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            if session is not None:
                self.send_header("Mcp-Session-Id", session)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            message = json.loads(body)
            session_id = self.headers.get("Mcp-Session-Id")
            if message.get("method") == "initialize":
                session_id = uuid.uuid4().hex
                sessions[session_id] = {}
            elif session_id is None:
                if message.get("method") not in ("server/discover", "ping"):
                    return self.send(400, b"Bad Request: no session")
            elif session_id not in sessions:
                return self.send(404, b"Not Found: no such session")
            session = sessions.get(session_id, {})
            header = self.headers.get("MCP-Protocol-Version")
            version = session.get("version")
            if header is not None and version is not None and header != version:
                return self.send(400, ("Bad Request: MCP-Protocol-Version %s, negotiated %s"
                                       % (header, version)).encode())
            missing = missing_standard_header(self.headers, message, header or version)
            if missing is not None:
                return self.send(400, ("Bad Request: " + missing).encode())
            answer = handle(message, session)
            if answer is None:
                return self.send(202, session=session_id)
            self.send(200, json.dumps(answer).encode(), "application/json", session_id)

        def do_GET(self):
            self.send(405, b"Method Not Allowed")

        def do_DELETE(self):
            sessions.pop(self.headers.get("Mcp-Session-Id"), None)
            self.send(200)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    sys.stdout.write("http://127.0.0.1:%d/mcp\n" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever()

if "--http" in args:
    serve_http()
else:
    serve_stdio()
"#;

/// Writes the script into `dir`; its path.
pub fn script(dir: &Path) -> PathBuf {
    let path = dir.join("versioned_server.py");
    std::fs::write(&path, SCRIPT).expect("write the versioned server script");
    path
}

/// The arguments of `python3` for the stdio server (the script written into `dir`, then
/// `args`).
pub fn stdio_args(dir: &Path, args: &[&str]) -> Vec<String> {
    let script = script(dir).display().to_string();
    std::iter::once(script)
        .chain(args.iter().map(|arg| (*arg).to_owned()))
        .collect()
}

/// The server serving streamable HTTP (`--http` and `args`); killed and reaped when dropped.
pub struct VersionedHttp {
    /// Its MCP endpoint.
    pub url: String,
    child: Child,
}

impl VersionedHttp {
    /// Starts the script (written into `dir`) with `--http` and `args`, its stderr into
    /// `dir/versioned_server.log`; waits for its URL.
    pub fn start(dir: &Path, args: &[&str]) -> Self {
        let log = std::fs::File::create(dir.join("versioned_server.log")).expect("create the log");
        let mut child = Command::new("python3")
            .arg(script(dir))
            .arg("--http")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start python3");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        let read = BufReader::new(stdout).read_line(&mut line);
        let url = line.trim().to_owned();
        let server = Self { url, child };
        assert!(
            read.is_ok() && server.url.starts_with("http://"),
            "the versioned HTTP server printed no URL: {line:?}"
        );
        server
    }
}

impl Drop for VersionedHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
