package testkit

// Loopback scenarios for the GitHub Copilot CLI (OpenAI Chat Completions),
// after the captures in fixtures/external-cli/subagents/copilot-*: the
// lead's `task` tool takes name, description, prompt, agent_type and mode.

// CopilotFanOut is the capture's CAP-FG3: three sync sub-agents in one
// response, 2 s answers each; the lead sums up once all three are in.
const CopilotFanOut = `
rules:
  - name: sub-ALPHA
    match: {last_user_contains: SUBTASK-ALPHA, has_tool_results: false}
    respond: {text: done ALPHA, delay_ms: 2000}
  - name: sub-BETA
    match: {last_user_contains: SUBTASK-BETA, has_tool_results: false}
    respond: {text: done BETA, delay_ms: 2000}
  - name: sub-GAMMA
    match: {last_user_contains: SUBTASK-GAMMA, has_tool_results: false}
    respond: {text: done GAMMA, delay_ms: 2000}
  - name: lead-final
    match: {tool_results_contain_all: [done ALPHA, done BETA, done GAMMA]}
    respond: {text: "Summary: ALPHA, BETA and GAMMA are all done."}
  - name: lead-fanout
    match: {last_user_contains: CAP-FG3, has_tool_results: false}
    respond:
      text: Starting three sub-agents.
      tool_calls:
        - {name: task, input: {name: alpha, description: Subtask alpha, agent_type: general-purpose, mode: sync, prompt: "SUBTASK-ALPHA: report that you are finished. Do not use any tools."}}
        - {name: task, input: {name: beta, description: Subtask beta, agent_type: general-purpose, mode: sync, prompt: "SUBTASK-BETA: report that you are finished. Do not use any tools."}}
        - {name: task, input: {name: gamma, description: Subtask gamma, agent_type: general-purpose, mode: sync, prompt: "SUBTASK-GAMMA: report that you are finished. Do not use any tools."}}
`

// CopilotBackground is the capture's CAP-BG1: one background sub-agent
// whose answer takes 3 s; the lead acknowledges at once, and the CLI wakes
// it with the result (its own read_agent call), which it reports.
const CopilotBackground = `
rules:
  - name: sub-DELTA
    match: {last_user_contains: SUBTASK-DELTA, has_tool_results: false}
    respond: {text: done DELTA, delay_ms: 3000}
  - name: lead-bg-final
    match: {tool_results_contain_all: [done DELTA]}
    respond: {text: "Background sub-agent DELTA finished. (BG done)"}
  - name: lead-bg-ack
    match: {last_user_contains: CAP-BG1, has_tool_results: true}
    respond: {text: "The background sub-agent is running; I will report when it finishes."}
  - name: lead-bg
    match: {last_user_contains: CAP-BG1, has_tool_results: false}
    respond:
      text: Starting one background sub-agent.
      tool_calls:
        - {name: task, input: {name: delta, description: Background delta, agent_type: general-purpose, mode: background, prompt: "SUBTASK-DELTA: report that you are finished. Do not use any tools."}}
`

// CopilotSlow is the capture's CAP-INT: one sync sub-agent whose answer
// takes 30 s.
const CopilotSlow = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, has_tool_results: false}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: lead-int
    match: {last_user_contains: CAP-INT, has_tool_results: false}
    respond:
      text: Starting one slow sub-agent.
      tool_calls:
        - {name: task, input: {name: slow, description: Slow task, agent_type: general-purpose, mode: sync, prompt: "SUBTASK-SLOW: report when finished. Do not use any tools."}}
`

// CopilotPerm is the capture's CAP-PERM: a sub-agent runs a shell command,
// which needs approval.
const CopilotPerm = `
rules:
  - name: sub-perm-final
    match: {first_user_contains: SUBTASK-PERM, has_tool_results: true}
    respond: {text: done PERM}
  - name: sub-perm-cmd
    match: {last_user_contains: SUBTASK-PERM, has_tool_results: false}
    respond:
      text: Writing the file.
      tool_calls:
        - {name: bash, input: {command: "touch perm.txt", description: Write perm.txt, mode: sync}}
  - name: lead-final
    match: {last_user_contains: CAP-PERM, has_tool_results: true}
    respond: {text: The sub-agent is done.}
  - name: lead-perm
    match: {last_user_contains: CAP-PERM, has_tool_results: false}
    respond:
      text: Starting a sub-agent that writes a file.
      tool_calls:
        - {name: task, input: {name: perm, description: Write a file, agent_type: general-purpose, mode: sync, prompt: "SUBTASK-PERM: run touch perm.txt with bash, then report."}}
`
