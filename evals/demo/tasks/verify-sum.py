#!/usr/bin/env python3
"""The agent's answer holds the expected sum, and the trace shows the add call."""
import json
import os
import sys

expected = open("expected.txt").read().strip()
answer = os.environ["MCPEVAL_AGENT_OUTPUT"]
trace = json.load(open(os.environ["MCPEVAL_TRACE"]))
adds = [c for c in trace["calls"] if c["kind"] == "tool" and c["name"] == "add"]
if not adds or adds[0]["arguments"] != {"a": 2, "b": 40}:
    sys.exit(f"no add call with a=2, b=40 in the trace: {trace['calls']}")
if adds[0]["outcome"]["status"] != "ok" or expected not in json.dumps(adds[0]["outcome"]["result"]):
    sys.exit(f"add did not return {expected}: {adds[0]['outcome']}")
print(f"answer: {answer!r}")
