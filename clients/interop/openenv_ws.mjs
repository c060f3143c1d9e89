// Interop check: an OpenEnv-style session over WebSocket with the `ws`
// client, shaped as OpenEnv's EnvClient speaks to HTTPEnvServer's /ws:
// {"type": "reset" | "step" | "state" | "close", "data": {...}} in,
// {"type": "observation" | "state" | "error", "data": {...}} out.
//
//   node openenv_ws.mjs http://127.0.0.1:PORT [TOKEN]
//
// Prints one JSON line; exit 0 on success.
import WebSocket from "ws";

const [base, token] = process.argv.slice(2);
if (!base) {
  console.error("usage: node openenv_ws.mjs BASE_URL [TOKEN]");
  process.exit(2);
}
const url = base.replace(/^http/, "ws") + "/ws";
const ws = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

const queue = [];
let waiting = null;
ws.on("message", (data) => {
  const msg = JSON.parse(data.toString());
  if (waiting) {
    const w = waiting;
    waiting = null;
    w(msg);
  } else {
    queue.push(msg);
  }
});

function send(msg) {
  ws.send(JSON.stringify(msg));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timeout waiting for " + msg.type)), 10000);
    const done = (m) => {
      clearTimeout(t);
      resolve(m);
    };
    if (queue.length) done(queue.shift());
    else waiting = done;
  });
}

function check(cond, msg) {
  if (!cond) throw new Error("check failed: " + msg);
}

ws.on("error", (err) => {
  console.error(JSON.stringify({ ok: false, error: String(err) }));
  process.exit(1);
});

ws.on("open", async () => {
  try {
    const reset = await send({ type: "reset", data: { task: "put-d", seed: 1 } });
    check(reset.type === "observation", "reset type " + JSON.stringify(reset));
    check(reset.data.done === false && reset.data.reward === null, "reset data " + JSON.stringify(reset.data));
    const id = reset.data.observation.episode_id;
    check(typeof id === "string" && id.startsWith("ep_"), "episode id");

    const step = await send({
      type: "step",
      data: { type: "call_tool", tool_name: "put", arguments: { key: "d", value: "date", n: 4 } },
    });
    // OpenEnv's CallToolObservation: the MCP call result in result, error null.
    const res = step.data.observation.result;
    check(step.type === "observation" && res.content[0].type === "text" && res.content[0].text === "ok" &&
      res.is_error === false && step.data.observation.error === null, "step " + JSON.stringify(step));
    check(step.data.done === false && step.data.reward === 0, "step reward " + JSON.stringify(step.data));

    // A framework failure is typed in error, not hidden in result.
    const unknown = await send({ type: "step", data: { type: "call_tool", tool_name: "nope", arguments: {} } });
    check(unknown.data.observation.result === null && unknown.data.observation.error.error_type === "tool_not_found",
      "unknown tool " + JSON.stringify(unknown));

    const state = await send({ type: "state" });
    check(state.type === "state" && state.data.step_count === 2 && state.data.episode_id === id, "state " + JSON.stringify(state));

    const fin = await send({ type: "step", data: { type: "final", answer: "stored" } });
    check(fin.data.done === true && fin.data.reward === 1, "final " + JSON.stringify(fin.data));

    const bad = await send({ type: "nonsense" });
    check(bad.type === "error" && bad.data.code === "UNKNOWN_TYPE", "error " + JSON.stringify(bad));

    ws.send(JSON.stringify({ type: "close" }));
    ws.on("close", () => {
      console.log(JSON.stringify({ ok: true, episode: id, reward: fin.data.reward }));
      process.exit(0);
    });
  } catch (err) {
    console.error(JSON.stringify({ ok: false, error: String(err) }));
    process.exit(1);
  }
});
