#!/usr/bin/env python3
# A demo MCP server (stdio, Python's standard library only) whose `add` asks its user to
# confirm first (elicitation/create, form mode) when the client declares it can be asked:
# accepted with `confirm: true`, it answers the sum; declined or cancelled, it adds nothing.
# Under the 2026-07-28 protocol (reached with server/discover) it asks through an input
# round instead (an InputRequiredResult the client fulfils and retries, with the request
# state echoed), and answers the confirmed sum as a task (the Tasks extension), `working`
# until its first tasks/get, which completes it.
import json
import sys

TOOLS = [{
    "name": "add",
    "description": "Adds two numbers, after the user confirms",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]},
}]
MODERN = "2026-07-28"
STAMP = "2026-11-29T00:00:00Z"
CONFIRM = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
can_ask = [False]
era = [None]
next_id = [0]
TASKS = {}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(id, words):
    send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": words}]}})


def ask(message):
    next_id[0] += 1
    ask_id = "confirm-%d" % next_id[0]
    send({"jsonrpc": "2.0", "id": ask_id, "method": "elicitation/create", "params": {
        "mode": "form", "message": message, "requestedSchema": CONFIRM}})
    for line in sys.stdin:
        answer = json.loads(line)
        if answer.get("id") == ask_id and "method" not in answer:
            return answer.get("result") or {}
    sys.exit(0)


def total(a, b):
    value = a + b
    return str(int(value) if float(value).is_integer() else value)


def task_state(task_id):
    task = TASKS[task_id]
    state = {"taskId": task_id, "status": task["status"], "createdAt": STAMP,
             "lastUpdatedAt": STAMP, "ttlMs": None, "pollIntervalMs": 20}
    if task["status"] == "completed":
        state["result"] = {"content": [{"type": "text", "text": task["answer"]}]}
    return state


def add_modern(id, params):
    """`add` under 2026-07-28: an input round asks to confirm, then a task answers."""
    args = params.get("arguments") or {}
    a, b = args.get("a", 0), args.get("b", 0)
    if params.get("requestState") != "asked-confirm":
        return send({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "input_required", "requestState": "asked-confirm",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "Add %s and %s?" % (a, b), "requestedSchema": CONFIRM}}}}})
    answer = (params.get("inputResponses") or {}).get("confirm") or {}
    if answer.get("action") != "accept" or (answer.get("content") or {}).get("confirm") is not True:
        return text(id, "not added: the user said %s" % answer.get("action"))
    task_id = "add-%d" % (len(TASKS) + 1)
    TASKS[task_id] = {"status": "working", "answer": total(a, b)}
    send({"jsonrpc": "2.0", "id": id, "result": dict(task_state(task_id), resultType="task")})


def add(id, args):
    a, b = args.get("a", 0), args.get("b", 0)
    if not can_ask[0]:
        return text(id, "not added: this client cannot ask its user")
    answer = ask("Add %s and %s?" % (a, b))
    if answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm") is True:
        return text(id, total(a, b))
    return text(id, "not added: the user said %s" % answer.get("action"))


for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None or method is None:
        continue
    params = message.get("params") or {}
    if method == "server/discover":
        era[0] = MODERN
        send({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete", "supportedVersions": [MODERN], "capabilities": {"tools": {}}, "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "asking-demo", "version": "1.0.0"}}}})
    elif method == "initialize":
        can_ask[0] = "elicitation" in (params.get("capabilities") or {})
        send({"jsonrpc": "2.0", "id": id, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}}, "serverInfo": {"name": "asking-demo", "version": "1.0.0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": TOOLS}})
    elif method == "tools/call" and params.get("name") == "add" and era[0] == MODERN:
        add_modern(id, params)
    elif method == "tools/call" and params.get("name") == "add":
        add(id, params.get("arguments") or {})
    elif method == "tasks/get" and params.get("taskId") in TASKS:
        task = TASKS[params["taskId"]]
        answer = task_state(params["taskId"])
        task["status"] = "completed"
        send({"jsonrpc": "2.0", "id": id, "result": answer})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": id, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no method " + method}})
