// The MCP ToolSet against the real reference servers over stdio and Streamable HTTP.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpToolSet } from "../../../src/extensions/mcp/mcp-tool-set.js";
import type { ToolCall, ToolProgress } from "../../../src/tools/types.js";
import { EVERYTHING, FILESYSTEM, MEMORY, serverConfig, startEverythingHttp, stdio } from "./servers.js";
import { tempDir } from "../../support/temp-dir.js";

const signal = new AbortController().signal;
let n = 0;
const call = (name: string, input: unknown): ToolCall => ({ id: `call_${++n}`, name, input: JSON.stringify(input) });

describe("MCP servers as a ToolSet", () => {
  const dir = tempDir("awl-mcp-");
  const files = join(dir, "files");
  let http: Awaited<ReturnType<typeof startEverythingHttp>>;
  let tools: McpToolSet;

  beforeAll(async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(files);
    writeFileSync(join(files, "notes.txt"), "the notes of the project\n");
    http = await startEverythingHttp();
    tools = McpToolSet.start({
      servers: [
        serverConfig("everything", stdio(EVERYTHING)),
        serverConfig("fs", stdio(FILESYSTEM, [files])),
        serverConfig("memory", stdio(MEMORY, [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") })),
        serverConfig("web", { type: "http", url: http.url, headers: {} }),
      ],
      env: process.env,
      spillDir: join(dir, "spill"),
    });
    expect(await tools.waitForStart(60_000)).toEqual([]);
    await tools.refresh();
  }, 90_000);

  afterAll(async () => {
    await tools?.close();
    http?.stop();
  });

  it("lists each server's tools as <server>_<tool>, with kinds from the annotations", () => {
    const names = tools.definitions().map((t) => t.name);
    expect(names).toContain("everything_echo");
    expect(names).toContain("fs_read_text_file");
    expect(names).toContain("memory_create_entities");
    expect(names).toContain("web_echo");
    expect([...names].sort()).toEqual(names);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const echo = tools.definitions().find((t) => t.name === "everything_echo")!;
    expect(JSON.parse(echo.schema)).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(echo.kinds).toEqual(["read"]);
    const servers = tools.servers();
    expect(servers.map((s) => [s.name, s.state, s.transport])).toEqual([
      ["everything", "ready", "stdio"],
      ["fs", "ready", "stdio"],
      ["memory", "ready", "stdio"],
      ["web", "ready", "http"],
    ]);
    expect(servers[0]!.schema_bytes).toBeGreaterThan(500);
  });

  it("calls echo over stdio and over HTTP", async () => {
    expect(await tools.execute(call("everything_echo", { message: "hi" }), signal)).toMatchObject({ status: "result", content: "Echo: hi", is_error: false });
    expect(await tools.execute(call("web_echo", { message: "over http" }), signal)).toMatchObject({ status: "result", content: "Echo: over http", is_error: false });
  });

  it("reads a file through the filesystem server, and stores a memory entity in MEMORY_FILE_PATH", async () => {
    const read = await tools.execute(call("fs_read_text_file", { path: join(files, "notes.txt") }), signal);
    expect(read).toMatchObject({ status: "result", is_error: false });
    expect((read as { content: string }).content).toContain("the notes of the project");
    const outside = await tools.execute(call("fs_read_text_file", { path: "/etc/hostname" }), signal);
    expect(outside).toMatchObject({ status: "result", is_error: true });
    const created = await tools.execute(call("memory_create_entities", { entities: [{ name: "awl", entityType: "agent", observations: ["speaks MCP"] }] }), signal);
    expect(created).toMatchObject({ status: "result", is_error: false });
    expect(readFileSync(join(dir, "memory.jsonl"), "utf8")).toContain("speaks MCP");
  });

  it("maps an image, resource links and structured content; isError stays an error", async () => {
    const image = await tools.execute(call("everything_get-tiny-image", {}), signal);
    expect(image).toMatchObject({ status: "result", is_error: false, images: [{ media_type: "image/png" }] });
    const links = await tools.execute(call("everything_get-resource-links", { count: 2 }), signal);
    expect((links as { content: string }).content).toMatch(/\[resource link: .+ <demo:\/\/resource\/dynamic\/\w+\/1>/);
    const structured = await tools.execute(call("everything_get-structured-content", { location: "New York" }), signal);
    expect(structured).toMatchObject({ status: "result", details: { structuredContent: { temperature: expect.any(Number) } } });
    // The server reports its own errors as a normal result with isError (here: a file that does not exist).
    const missing = await tools.execute(call("fs_read_text_file", { path: join(files, "nope.txt") }), signal);
    expect(missing).toMatchObject({ status: "result", is_error: true });
  });

  it("reports progress of a long-running operation", async () => {
    const updates: ToolProgress[] = [];
    const outcome = await tools.execute(call("everything_trigger-long-running-operation", { duration: 0.6, steps: 3 }), signal, (u) => updates.push(u));
    expect(outcome).toMatchObject({ status: "result", is_error: false });
    // The server sends its last notification before the result: none is lost, however late awl reads them.
    const steps = updates.map((u) => (u.kind === "progress" ? Math.round(u.fraction * 3) : -1));
    expect(steps).toEqual([1, 2, 3]);
  });

  it("appends each server's instructions, bounded", () => {
    const instructions = tools.instructions();
    const everything = instructions.find((i) => i.includes('"everything"'));
    expect(everything).toBeDefined();
    expect(everything!.length).toBeLessThan(2_200);
  });
});
