// An ACP client built on the official TypeScript library
// (@agentclientprotocol/sdk, pinned by .ci/run), which validates every
// message Atomic sends. It runs one flow against `atomic acp` and prints
// what it saw, one JSON object per line, for the Go test to check:
//   {"update": SessionNotification, "at": ms}   each session/update
//   {"asked": RequestPermissionRequest}          each approval asked
//   {"response": PromptResponse} / {"error": message}
//   {"loaded": true}                              session/load answered
//
// Usage: node client.mjs SDK_DIR FLOW_JSON -- ATOMIC_BIN ARGS...
// FLOW_JSON: {"cwd", "before"?: [prompts answered first], "prompt", "waitText"?, "approve"?: true,
//             "cancelAt"?: N in-progress tool calls, "load"?: true,
//             "fs"?: {path: text}, "waitCall"?: title part of a tool call to see end,
//             "after"?: [prompts sent then, each printed as {"sent": text, "at": ms}],
//             "loadPrompt"?: prompt sent after session/load}
// An empty "prompt" sends none (a session created, never prompted).
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, flowJSON, sep, bin, ...args] = process.argv.slice(2);
if (sep !== "--" || !bin) {
  console.error("usage: node client.mjs SDK_DIR FLOW_JSON -- ATOMIC_BIN ARGS...");
  process.exit(2);
}
const flow = JSON.parse(flowJSON);
const acp = await import(pathToFileURL(path.join(sdkDir, "node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")));
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// start runs one atomic acp and the flow's step on it.
async function start(step) {
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const statuses = new Map();
  const titles = new Map();
  let text = "";
  let wake = () => {};
  const app = acp
    .client({ name: "atomic-e2e" })
    .onNotification(acp.methods.client.session.update, async ({ params }) => {
      out({ update: params, at: Date.now() });
      const u = params.update;
      if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.status) {
        statuses.set(u.toolCallId, u.status);
      }
      if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.title) {
        titles.set(u.toolCallId, u.title);
      }
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
        text += u.content.text;
      }
      wake();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      out({ asked: params });
      const optionId = params.toolCall._meta?.agent === "lead" ? "allow_once" : "reject_once";
      return { outcome: { outcome: "selected", optionId } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      if (!(params.path in (flow.fs ?? {}))) throw acp.RequestError.resourceNotFound(params.path);
      return { content: flow.fs[params.path] };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      out({ wrote: params });
      flow.fs[params.path] = params.content;
      return {};
    });
  const until = (cond) =>
    new Promise((resolve) => {
      const check = () => (cond() ? resolve() : (wake = check));
      check();
    });
  const inProgress = () => [...statuses.values()].filter((s) => s === "in_progress").length;
  try {
    const ended = (part) =>
      [...titles].some(([id, t]) => t.includes(part) && ["completed", "failed"].includes(statuses.get(id)));
    await app.connectWith(stream, (agent) => step(agent, { until, inProgress, ended, text: () => text }));
  } finally {
    child.stdin.end();
    await exited;
  }
}

const caps = { fs: { readTextFile: !!flow.fs, writeTextFile: !!flow.fs } };
let sessionId;
await start(async (agent, h) => {
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: caps });
  out({ initialized: init });
  const s = await agent.request(acp.methods.agent.session.new, { cwd: flow.cwd, mcpServers: [] });
  sessionId = s.sessionId;
  for (const text of flow.before ?? []) {
    await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  }
  if (!flow.prompt) return;
  const prompt = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: flow.prompt }] });
  if (flow.cancelAt) {
    await h.until(() => h.inProgress() >= flow.cancelAt);
    await new Promise((r) => setTimeout(r, 500)); // the sub-agents' commands start
    await agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }
  try {
    out({ response: await prompt, at: Date.now() });
  } catch (e) {
    out({ error: String(e?.message ?? e), at: Date.now() });
  }
  if (flow.waitText) await h.until(() => h.text().includes(flow.waitText));
  if (flow.waitCall) await h.until(() => h.ended(flow.waitCall));
  for (const text of flow.after ?? []) {
    out({ sent: text, at: Date.now() });
    await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  }
});
if (flow.load) {
  out({ loading: true });
  await start(async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: caps });
    out({ reinitialized: init });
    await agent.request(acp.methods.agent.session.load, { sessionId, cwd: flow.cwd, mcpServers: [] });
    out({ loaded: true });
    if (flow.loadPrompt) {
      out({ response: await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: flow.loadPrompt }] }), at: Date.now() });
    }
  });
}
