#!/usr/bin/env python3
"""Drive `claude -p` in stream-json both ways: send the initialize request
and one user message, save stdout and stdin, close stdin once the CLI has
written `results` result lines (default 1). Every can_use_tool request is
allowed.

usage: capture.py OUT_PREFIX PROMPT [RESULTS] -- CLAUDE_COMMAND...
"""
import json, subprocess, sys

sep = sys.argv.index("--")
out, prompt = sys.argv[1], sys.argv[2]
want = int(sys.argv[3]) if sep > 3 else 1
cmd = sys.argv[sep + 1:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
sent = []

def send(v):
    line = json.dumps(v, separators=(",", ":"))
    sent.append(line)
    p.stdin.write((line + "\n").encode())
    p.stdin.flush()

send({"type": "control_request", "request_id": "req_init", "request": {"subtype": "initialize"}})
send({"type": "user", "message": {"role": "user", "content": prompt}, "parent_tool_use_id": None, "session_id": ""})
results = 0
with open(out + ".jsonl", "wb") as f:
    for raw in p.stdout:
        f.write(raw)
        f.flush()
        msg = json.loads(raw)
        req = msg.get("request") or {}
        if msg.get("type") == "control_request" and req.get("subtype") == "can_use_tool":
            send({"type": "control_response", "response": {"subtype": "success", "request_id": msg["request_id"],
                  "response": {"behavior": "allow", "updatedInput": req.get("input", {}), "toolUseID": req.get("tool_use_id")}}})
        if msg.get("type") == "result":
            results += 1
            if results == want:
                p.stdin.close()
p.wait()
with open(out + ".stdin.jsonl", "w") as f:
    f.write("\n".join(sent) + "\n")
