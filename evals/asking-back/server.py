#!/usr/bin/env python3
# A demo MCP server (stdio, Python's standard library only) whose `add` asks its user to
# confirm first (elicitation/create, form mode) when the client declares it can be asked:
# accepted with `confirm: true`, it answers the sum; declined or cancelled, it adds nothing.
import json
import sys

TOOLS = [{
    "name": "add",
    "description": "Adds two numbers, after the user confirms",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]},
}]
can_ask = [False]
next_id = [0]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(id, words):
    send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": words}]}})


def ask(message):
    next_id[0] += 1
    ask_id = "confirm-%d" % next_id[0]
    send({"jsonrpc": "2.0", "id": ask_id, "method": "elicitation/create", "params": {
        "mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}},
                            "required": ["confirm"]}}})
    for line in sys.stdin:
        answer = json.loads(line)
        if answer.get("id") == ask_id and "method" not in answer:
            return answer.get("result") or {}
    sys.exit(0)


def add(id, args):
    a, b = args.get("a", 0), args.get("b", 0)
    if not can_ask[0]:
        return text(id, "not added: this client cannot ask its user")
    answer = ask("Add %s and %s?" % (a, b))
    if answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm") is True:
        total = a + b
        return text(id, str(int(total) if float(total).is_integer() else total))
    return text(id, "not added: the user said %s" % answer.get("action"))


for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None or method is None:
        continue
    params = message.get("params") or {}
    if method == "initialize":
        can_ask[0] = "elicitation" in (params.get("capabilities") or {})
        send({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}}, "serverInfo": {"name": "asking-demo", "version": "1.0.0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": TOOLS}})
    elif method == "tools/call" and params.get("name") == "add":
        add(id, params.get("arguments") or {})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": id, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no method " + method}})
