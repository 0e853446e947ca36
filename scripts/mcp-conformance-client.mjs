#!/usr/bin/env node
// The client side of the MCP conformance suite (@modelcontextprotocol/conformance, which needs Node ≥ 22) run
// against awl's own MCP client, the McpToolSet of the built awl (dist/): the suite starts a test server and runs
//   node scripts/mcp-conformance-client.mjs URL
// with MCP_CONFORMANCE_SCENARIO set. This connects as awl does (Streamable HTTP, SSE fallback), lists the
// tools, calls each one the scenario offers with the arguments it expects, prints each result, and exits.
// docs/mcp.md ("Conformance") has the command and the latest result.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpToolSet } from "../dist/extensions/mcp/mcp-tool-set.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: mcp-conformance-client.mjs URL");
  process.exit(2);
}
/** Arguments for the tools the suite's scenarios offer. */
const ARGUMENTS = { add_numbers: { a: 2, b: 3 } };

// Where long results would spill: removed when the client exits, so a suite's runs leave nothing in the temp folder.
const spillDir = mkdtempSync(join(tmpdir(), "awl-conformance-"));
process.on("exit", () => rmSync(spillDir, { recursive: true, force: true }));
const tools = McpToolSet.start({
  servers: [{ name: "conformance", source: "user", file: "conformance", disabled: false, fingerprint: "conformance", transport: { type: "http", url, headers: {} } }],
  env: process.env,
  spillDir,
});
await tools.waitForStart(20_000);
await tools.refresh();
const [server] = tools.servers();
console.log(`server: ${server.state} over ${server.transport}${server.error ? `: ${server.error}` : ""}`);
const signal = new AbortController().signal;
let id = 0;
for (const tool of tools.definitions()) {
  const outcome = await tools.execute({ id: `call_${++id}`, name: tool.name, input: JSON.stringify(ARGUMENTS[tool.tool] ?? {}) }, signal);
  console.log(`${tool.tool}: ${JSON.stringify(outcome)}`);
}
await tools.close();
process.exit(server.state === "ready" ? 0 : 1);
