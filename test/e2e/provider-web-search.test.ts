// `"search": {"backend": "provider"}`: awl offers the provider's own web search (Anthropic's `web_search` server
// tool, OpenAI Responses' `web_search` tool) instead of its `search` tool, and the citations of the answer are shown
// (print mode's text, stream-json) and kept in the session; each search is shown where it happened (a tool block on
// stderr, a `server_tool` event) and the text after it starts a new paragraph. The fake servers replay streams shaped as the vendors'
// documentation shows them (server_tool_use / web_search_tool_result blocks and citations_delta; web_search_call
// items and url_citation annotations).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAwl, tempDir } from "../cli/run-awl.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const fixture = (vendor: string) => readFileSync(new URL(`../fixtures/${vendor}/web-search.sse`, import.meta.url));
const config = JSON.stringify({ search: { backend: "provider" } });

/** Every line of every session file below `dir`. */
function sessionLines(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) => readFileSync(join(dir, name), "utf8").split("\n"));
}

const anthropic = (data: string) => ({ AWL_PROVIDER: "anthropic", AWL_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-e2e", AWL_MODEL: "claude-sonnet-4-5", XDG_DATA_HOME: data });
const responses = (data: string) => ({ AWL_PROVIDER: "openai-responses", AWL_BASE_URL: server.url, OPENAI_API_KEY: "sk-e2e", AWL_MODEL: "gpt-5-mini", XDG_DATA_HOME: data });

describe("provider-side web search", () => {
  it("Anthropic: the request offers the web_search server tool instead of awl's search tool; the search is shown between the paragraphs; the answer prints its sources; the session keeps them", async () => {
    server.enqueue({ body: fixture("anthropic") });
    const data = tempDir("awl-data-");
    const run = await runAwl(["-p", "When was Claude Shannon born?"], { env: anthropic(data), configFile: config });
    expect(run.stderr).toBe("✓ web_search claude shannon birth date\n");
    expect(run.code).toBe(0);
    // The text before the search and the text after it are separate paragraphs, not "…was born.Claude Shannon…".
    expect(run.stdout).toBe(
      "I'll search for when Claude Shannon was born.\n\nClaude Shannon was born on April 30, 1916, in Petoskey, Michigan\n" +
        "\nSources:\n  [1] Claude Shannon - Wikipedia — https://en.wikipedia.org/wiki/Claude_Shannon\n",
    );
    const tools = server.requests.at(-1)!.json().tools as { name: string; type?: string }[];
    expect(tools[0]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
    expect(tools.map((t) => t.name)).not.toContain("search");
    const saved = sessionLines(data).find((line) => line.includes('"citations"'));
    expect(saved).toContain('"citations":[{"url":"https://en.wikipedia.org/wiki/Claude_Shannon","title":"Claude Shannon - Wikipedia","cited_text":"Claude Elwood Shannon (April 30, 1916');
  });

  it("Anthropic: stream-json's block_complete carries the citations; the next request sends the text back without them", async () => {
    server.enqueue({ body: fixture("anthropic") });
    const run = await runAwl(["-p", "When was Claude Shannon born?", "--output-format", "stream-json"], { env: anthropic(tempDir("awl-data-")), configFile: config });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; index?: number; block?: { type: string; text?: string; citations?: unknown[] } });
    // The search comes in its place: after the first text block, before the cited one.
    const search = events.findIndex((e) => e.type === "server_tool");
    expect(events[search]).toEqual({ type: "server_tool", id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", name: "web_search", input: { query: "claude shannon birth date" } });
    expect(events[search - 1]).toMatchObject({ type: "block_complete", index: 0 });
    expect(events[search + 1]).toMatchObject({ type: "block_start", index: 1, block_type: "text" });
    const cited = events.filter((e) => e.type === "block_complete" && e.block?.citations);
    expect(cited.map((e) => e.block)).toEqual([
      {
        type: "text",
        text: "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan",
        citations: [
          {
            url: "https://en.wikipedia.org/wiki/Claude_Shannon",
            title: "Claude Shannon - Wikipedia",
            cited_text:
              'Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician, electrical engineer, computer scientist, cryptographer and inventor known as the "father of information theory". ',
          },
        ],
      },
    ]);
  });

  it("OpenAI Responses: the request offers {type: web_search}; url_citation annotations become the printed sources", async () => {
    server.enqueue({ body: fixture("openai-responses") });
    const data = tempDir("awl-data-");
    const run = await runAwl(["-p", "Any good news today?"], { env: responses(data), configFile: config });
    expect(run.stderr).toBe("✓ web_search positive news story today\n");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "A coral reef off Australia is recovering faster than expected ([reuters.com](https://www.reuters.com/science/reef-recovery/?utm_source=openai)).\n" +
        "\nSources:\n  [1] Coral reef recovers faster than expected — https://www.reuters.com/science/reef-recovery/?utm_source=openai\n",
    );
    const body = server.requests.at(-1)!.json() as { tools: { type: string; name?: string }[] };
    expect(body.tools[0]).toEqual({ type: "web_search" });
    expect(body.tools.map((t) => t.name)).not.toContain("search");
    expect(sessionLines(data).some((line) => line.includes('"citations":[{"url":"https://www.reuters.com/science/reef-recovery/?utm_source=openai","title":"Coral reef recovers faster than expected"}]'))).toBe(true);
  });

  it("without the setting awl's own search tool is offered and no server tool", async () => {
    server.enqueue({ body: readFileSync(new URL("../fixtures/anthropic/text.sse", import.meta.url)) });
    const run = await runAwl(["-p", "hi"], { env: anthropic(tempDir("awl-data-")) });
    expect(run.code).toBe(0);
    const tools = server.requests.at(-1)!.json().tools as { name: string; type?: string }[];
    expect(tools.map((t) => t.name)).toContain("search");
    expect(tools.some((t) => t.type !== undefined)).toBe(false);
  });
});
