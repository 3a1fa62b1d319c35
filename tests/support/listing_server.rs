//! A stdio MCP server that lists what a JSON spec file says, in pages: a small Python 3
//! script, for `mcpeval init`'s tests (200 tools, tools without a description or an input
//! schema, names that are no file names).
//!
//! The spec: `{"name", "version", "tools": [...], "resources": [...], "prompts": [...],
//! "page": N}`; each list is answered `page` items at a time (default 50), with the next
//! index as the cursor. Resources and prompts are advertised only when the spec has them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

const SCRIPT: &str = r#"
import json, sys

spec = json.load(open(sys.argv[1]))
page = spec.get("page", 50)
out = sys.stdout

def send(message):
    out.write(json.dumps(message) + "\n")
    out.flush()

def listing(id, key, items, params):
    start = int((params or {}).get("cursor") or 0)
    result = {key: items[start:start + page]}
    if start + page < len(items):
        result["nextCursor"] = str(start + page)
    send({"jsonrpc": "2.0", "id": id, "result": result})

lists = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}

for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None:
        continue
    if method == "initialize":
        capabilities = {"tools": {}}
        if spec.get("resources") or spec.get("resourceTemplates"):
            capabilities["resources"] = {}
        if spec.get("prompts"):
            capabilities["prompts"] = {}
        send({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "serverInfo": {"name": spec["name"], "version": spec.get("version", "1.0.0")}}})
    elif method in lists:
        key = lists[method]
        listing(id, key, spec.get(key, []), message.get("params"))
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": id, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no " + method}})
"#;

/// Writes the script and `spec` into `dir`; the command line that starts the server.
pub fn command(dir: &Path, spec: &Value) -> String {
    let script = dir.join("listing_server.py");
    std::fs::write(&script, SCRIPT).expect("write the listing server script");
    let spec_file: PathBuf = dir.join("listing_spec.json");
    std::fs::write(&spec_file, spec.to_string()).expect("write the listing server spec");
    format!("python3 {} {}", script.display(), spec_file.display())
}
