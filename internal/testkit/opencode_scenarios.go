package testkit

// Loopback scenarios (YAML rules, OpenAI Chat Completions: OpenCode's
// OpenAI-compatible provider) that drive the real OpenCode CLI the way the
// captures in shared/fixtures/external-cli/subagents did. Lead rules ask
// for the task tool, sub-agent rules for a sub-agent's prompt; OpenCode's
// own tool-less requests (session titles) get the last rule.

// OpenCodeFanOut is the capture's CAP-FG3: three task calls in one
// response, whose sub-agents answer after 2 s each; then a summary.
const OpenCodeFanOut = `
rules:
  - name: sub-ALPHA
    match: {last_user_contains: SUBTASK-ALPHA, tools_include: [bash]}
    respond: {text: done ALPHA, delay_ms: 2000}
  - name: sub-BETA
    match: {last_user_contains: SUBTASK-BETA, tools_include: [bash]}
    respond: {text: done BETA, delay_ms: 2000}
  - name: sub-GAMMA
    match: {last_user_contains: SUBTASK-GAMMA, tools_include: [bash]}
    respond: {text: done GAMMA, delay_ms: 2000}
  - name: lead-final
    match: {tools_include: [task], tool_results_contain_all: [done ALPHA, done BETA, done GAMMA]}
    respond: {text: "Summary: ALPHA, BETA and GAMMA are all done."}
  - name: lead-fanout
    match: {last_user_contains: CAP-FG3, tools_include: [task], has_tool_results: false}
    respond:
      text: Starting three sub-agents.
      tool_calls:
        - {name: task, input: {description: Subtask alpha, subagent_type: general, prompt: "SUBTASK-ALPHA: report that you are finished. Do not use any tools."}}
        - {name: task, input: {description: Subtask beta, subagent_type: general, prompt: "SUBTASK-BETA: report that you are finished. Do not use any tools."}}
        - {name: task, input: {description: Subtask gamma, subagent_type: general, prompt: "SUBTASK-GAMMA: report that you are finished. Do not use any tools."}}
  - name: other
    respond: {text: Atomic}
`

// OpenCodeBackground is CAP-BG with OpenCode's background mode: the lead
// starts one background task and ends its turn; the sub-agent answers
// after 2 s, and its completion message wakes the lead.
const OpenCodeBackground = `
rules:
  - name: sub-BGX
    match: {last_user_contains: SUBTASK-BGX, tools_include: [bash]}
    respond: {text: done BGX, delay_ms: 2000}
  - name: lead-bg-final
    match: {last_user_contains: done BGX, tools_include: [task]}
    respond: {text: "Background sub-agent BGX finished."}
  - name: lead-bg-ack
    match: {last_user_contains: CAP-BG, tools_include: [task], has_tool_results: true}
    respond: {text: The sub-agent continues in the background.}
  - name: lead-bg
    match: {last_user_contains: CAP-BG, tools_include: [task], has_tool_results: false}
    respond:
      text: Starting one background sub-agent.
      tool_calls:
        - {name: task, input: {description: Background task, subagent_type: general, background: true, prompt: "SUBTASK-BGX: report when finished. Do not use any tools."}}
  - name: other
    respond: {text: Atomic}
`

// OpenCodeSlow is CAP-INT: one sub-agent whose answer takes 30 s.
const OpenCodeSlow = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, tools_include: [bash]}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: lead-int
    match: {last_user_contains: CAP-INT, tools_include: [task], has_tool_results: false}
    respond:
      text: Starting one slow sub-agent.
      tool_calls:
        - {name: task, input: {description: Slow task, subagent_type: general, prompt: "SUBTASK-SLOW: report when finished. Do not use any tools."}}
  - name: other
    respond: {text: Atomic}
`

// OpenCodePerm is CAP-PERM: a sub-agent runs a command, which OpenCode
// asks to approve.
const OpenCodePerm = `
rules:
  - name: sub-perm-cmd
    match: {last_user_contains: SUBTASK-PERM, tools_include: [bash], has_tool_results: false}
    respond:
      text: Writing the file.
      tool_calls:
        - {name: bash, input: {command: touch perm.txt, description: Write perm.txt}}
  - name: sub-perm-final
    match: {last_user_contains: SUBTASK-PERM, tools_include: [bash], has_tool_results: true}
    respond: {text: done PERM}
  - name: lead-final
    match: {tools_include: [task], has_tool_results: true}
    respond: {text: The sub-agent is done.}
  - name: lead-perm
    match: {last_user_contains: CAP-PERM, tools_include: [task], has_tool_results: false}
    respond:
      text: Starting a sub-agent that writes a file.
      tool_calls:
        - {name: task, input: {description: Write a file, subagent_type: general, prompt: "SUBTASK-PERM: run touch perm.txt with bash, then report."}}
  - name: other
    respond: {text: Atomic}
`
