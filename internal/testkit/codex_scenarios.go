package testkit

// Loopback scenarios (YAML rules) that drive the real Codex CLI the way the
// captures in shared/fixtures/external-cli/subagents did; shared by the
// end-to-end and terminal tests.

// CodexFanOut is the capture's CAP-FG3: the lead spawns three agents in
// one response, then waits on their ids until the three answers, 2 s
// each, are in; then it sums up.
const CodexFanOut = `
rules:
  - name: sub-ALPHA
    match: {last_user_contains: SUBTASK-ALPHA, tools_exclude: [spawn_agent]}
    respond: {text: done ALPHA, delay_ms: 2000}
  - name: sub-BETA
    match: {last_user_contains: SUBTASK-BETA, tools_exclude: [spawn_agent]}
    respond: {text: done BETA, delay_ms: 2000}
  - name: sub-GAMMA
    match: {last_user_contains: SUBTASK-GAMMA, tools_exclude: [spawn_agent]}
    respond: {text: done GAMMA, delay_ms: 2000}
  - name: lead-final
    match: {tool_results_contain_all: [done ALPHA, done BETA, done GAMMA]}
    respond: {text: "Summary: ALPHA, BETA and GAMMA are all done."}
  - name: lead-wait
    match: {has_tool_results: true, tools_include: [wait_agent]}
    respond:
      text: Waiting for the sub-agents.
      tool_calls:
        - {name: wait_agent, input: {timeout_ms: 60000}, collect: {json_field: agent_id, into: targets}}
  - name: lead-fanout
    match: {last_user_contains: CAP-FG3, has_tool_results: false}
    respond:
      text: Starting three sub-agents.
      tool_calls:
        - {name: spawn_agent, input: {message: "SUBTASK-ALPHA: report that you are finished. Do not use any tools."}}
        - {name: spawn_agent, input: {message: "SUBTASK-BETA: report that you are finished. Do not use any tools."}}
        - {name: spawn_agent, input: {message: "SUBTASK-GAMMA: report that you are finished. Do not use any tools."}}
`

// CodexPerm is the capture's CAP-PERM: a sub-agent runs a command that
// asks to leave the sandbox, which needs approval.
const CodexPerm = `
rules:
  - name: sub-perm-cmd
    match: {last_user_contains: SUBTASK-PERM, tools_exclude: [spawn_agent], has_tool_results: false}
    respond:
      text: Writing the file.
      tool_calls:
        - {name: exec_command, input: {cmd: "touch perm.txt", sandbox_permissions: require_escalated, justification: "CAP-PERM test: write perm.txt"}}
  - name: sub-perm-final
    match: {last_user_contains: SUBTASK-PERM, tools_exclude: [spawn_agent], has_tool_results: true}
    respond: {text: done PERM}
  - name: lead-final
    match: {tool_results_contain_all: [done PERM]}
    respond: {text: The sub-agent is done.}
  - name: lead-wait
    match: {has_tool_results: true, tools_include: [wait_agent]}
    respond:
      tool_calls:
        - {name: wait_agent, input: {timeout_ms: 60000}, collect: {json_field: agent_id, into: targets}}
  - name: lead-perm
    match: {last_user_contains: CAP-PERM, has_tool_results: false}
    respond:
      text: Starting a sub-agent that writes a file.
      tool_calls:
        - {name: spawn_agent, input: {message: "SUBTASK-PERM: run touch perm.txt in the shell, then report."}}
`

// CodexFanOutV2 is CodexFanOut with Codex's multi_agent_v2 tools
// (namespace collaboration): three spawn_agent{task_name, message}, whose
// tasks reach the children as agent_message input items, and wait_agent,
// which returns no content: the children's answers reach the lead as
// agent_message items too.
const CodexFanOutV2 = `
rules:
  - name: sub-ALPHA
    match: {last_user_contains: SUBTASK-ALPHA}
    respond: {text: done ALPHA, delay_ms: 2000}
  - name: sub-BETA
    match: {last_user_contains: SUBTASK-BETA}
    respond: {text: done BETA, delay_ms: 2000}
  - name: sub-GAMMA
    match: {last_user_contains: SUBTASK-GAMMA}
    respond: {text: done GAMMA, delay_ms: 2000}
  - name: lead-final
    match: {user_texts_contain_all: [done ALPHA, done BETA, done GAMMA]}
    respond: {text: "Summary: ALPHA, BETA and GAMMA are all done."}
  - name: lead-wait
    match: {any_user_contains: CAP-FG3, has_tool_results: true}
    respond:
      text: Waiting for the sub-agents.
      tool_calls:
        - {name: wait_agent, input: {timeout_ms: 30000}}
    times: 6
  - name: lead-fanout
    match: {last_user_contains: CAP-FG3, has_tool_results: false}
    respond:
      text: Starting three sub-agents.
      tool_calls:
        - {name: spawn_agent, input: {task_name: alpha, fork_turns: none, message: "SUBTASK-ALPHA: report that you are finished. Do not use any tools."}}
        - {name: spawn_agent, input: {task_name: beta, fork_turns: none, message: "SUBTASK-BETA: report that you are finished. Do not use any tools."}}
        - {name: spawn_agent, input: {task_name: gamma, fork_turns: none, message: "SUBTASK-GAMMA: report that you are finished. Do not use any tools."}}
`
