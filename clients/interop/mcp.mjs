// Interop check: the official MCP TypeScript SDK talks to one episode of a
// running `wasmenv serve` over streamable HTTP.
//
//   node mcp.mjs http://127.0.0.1:PORT/v1/episodes/ID/mcp [TOKEN]
//
// Lists the tools, calls put and get, and a call with bad arguments that must
// come back as an isError result. Prints one JSON line; exit 0 on success.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
if (!url) {
  console.error("usage: node mcp.mjs MCP_URL [TOKEN]");
  process.exit(2);
}

function check(cond, msg) {
  if (!cond) {
    throw new Error("check failed: " + msg);
  }
}

const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "wasmenv-interop", version: "0.0.0" });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(names.includes("put") && names.includes("get"), "tools: " + names.join(","));
  const put = tools.find((t) => t.name === "put");
  check(put.inputSchema && put.inputSchema.type === "object" && put.inputSchema.properties.value, "put inputSchema");

  const r1 = await client.callTool({ name: "put", arguments: { key: "ts", value: "typescript" } });
  check(!r1.isError && r1.content[0].type === "text" && r1.content[0].text === "ok", "put: " + JSON.stringify(r1));
  const r2 = await client.callTool({ name: "get", arguments: { key: "ts" } });
  check(!r2.isError && JSON.parse(r2.content[0].text).v === "typescript", "get: " + JSON.stringify(r2));
  const r3 = await client.callTool({ name: "get", arguments: { key: 42 } });
  check(r3.isError === true && r3.content[0].text.startsWith("Error: "), "bad arguments: " + JSON.stringify(r3));

  console.log(JSON.stringify({ ok: true, tools: names, get: r2.content[0].text }));
  await client.close();
  process.exit(0);
} catch (err) {
  console.error(JSON.stringify({ ok: false, error: String(err && err.stack ? err.stack : err) }));
  process.exit(1);
}
