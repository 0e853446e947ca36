/** Cost per turn and per session in the JSON output and in `awl sessions`, for a known model (issue 14 item 2). */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { fixture } from "../providers/anthropic/support.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

describe("cost figures of claude-sonnet-4-5 (text.sse: 25 in, 15 out, 1830 cache reads)", () => {
  it("cost_usd, total_cost_usd and the context in -p json, across a resumed turn, and in awl sessions", async () => {
    const home = tempDir();
    const env = { HOME: home, AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-cost", AWL_MODEL: "claude-sonnet-4-5" };
    server.enqueue({ body: fixture("text.sse") }, { body: fixture("text.sse") });
    const first = JSON.parse((await runAwl(["-p", "hi", "--output-format", "json"], { env, cwd: home })).stdout);
    // 25 × $3 + 15 × $15 + 1830 × $0.30 per million = $0.000849
    expect(first).toMatchObject({
      cost_usd: 0.000849,
      total_cost_usd: 0.000849,
      context: { model: "claude-sonnet-4-5", tokens: 25 + 1830 + 15, window: 200000, window_source: "catalogue", percent: 0.9 },
    });
    expect(first.cost_note).toBeUndefined();
    const second = JSON.parse((await runAwl(["-p", "again", "-c", "--output-format", "json"], { env, cwd: home })).stdout);
    expect([second.cost_usd, second.total_cost_usd]).toEqual([0.000849, 0.001698]);

    const listed = JSON.parse((await runAwl(["sessions", "--json"], { env })).stdout);
    expect(listed).toMatchObject([{ messages: 4, cost_usd: 0.001698 }]);
    const table = (await runAwl(["sessions"], { env })).stdout;
    expect(table.split("\n")[1]).toMatch(/\s\$0\.0017\s/);
  });

  it("a config override's prices are used in both places; a bad override stops awl with a clear error", async () => {
    const home = tempDir();
    const env = { HOME: home, AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-cost", AWL_MODEL: "claude-sonnet-4-5" };
    const configFile = JSON.stringify({ models: { "claude-sonnet-4-5": { prices: { input: "1", output: "1", cache_read: "0" } } } });
    server.enqueue({ body: fixture("text.sse") });
    const run = JSON.parse((await runAwl(["-p", "hi", "--output-format", "json"], { env, cwd: home, configFile })).stdout);
    expect(run.cost_usd).toBe(0.00004); // (25 + 15) × $1 per million
    const bad = await runAwl(["-p", "hi"], { env, cwd: home, configFile: JSON.stringify({ models: { "claude-sonnet-4-5": { context_window: "200k" } } }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/config\.json:1: key "models\.claude-sonnet-4-5\.context_window" expects a whole number of tokens ≥ 1024, got "200k"/);
  });
});

it("a reply printed as text reads no model catalogue; the same reply as JSON is priced from it", async () => {
  // Issue 30: the catalogue (parsed, checked and indexed: ≈ 2 ms of a one-line reply) prices a call only when a
  // total is asked for. A preload writes down each catalogue file read.
  const home = tempDir();
  const reads = join(home, "catalogue-reads.txt");
  const preload = join(home, "catalogue-reads.cjs");
  writeFileSync(preload, `const fs = require("node:fs"); const read = fs.readFileSync;
fs.readFileSync = function (path, ...rest) { if (String(path).endsWith("models.json")) fs.appendFileSync(${JSON.stringify(reads)}, path + "\\n"); return read.call(this, path, ...rest); };\n`);
  const env = { HOME: home, AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-cost", AWL_MODEL: "claude-sonnet-4-5", NODE_OPTIONS: `--require=${preload}` };
  server.enqueue({ body: fixture("text.sse") }, { body: fixture("text.sse") });
  const text = await runAwl(["-p", "hi", "--no-session"], { env, cwd: home });
  expect(text.code, text.stderr).toBe(0);
  expect(existsSync(reads)).toBe(false);
  const json = JSON.parse((await runAwl(["-p", "hi", "--no-session", "--output-format", "json"], { env, cwd: home })).stdout);
  expect(json).toMatchObject({ cost_usd: 0.000849, context: { window: 200000, window_source: "catalogue" } });
  expect(readFileSync(reads, "utf8")).toMatch(/catalogue\/models\.json\n/);
});
