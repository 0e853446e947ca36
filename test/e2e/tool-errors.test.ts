// A failed tool call reaches the model as a failure on every path awl sends it by: its text starts with "Error: "
// (OpenAI-compatible tool messages have no error flag), and Anthropic's is_error is set too; from a Lua tool or an MCP tool's
// isError; from `awl -p` and from a stream-json conversation. (ACP: test/cli/acp-permissions.test.ts; the
// interactive terminal: test/cli/permissions-tmux.test.ts.)
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LoggedRequest, ReplayServer } from "../support/replay-server.js";
import { FILESYSTEM } from "../extensions/mcp/servers.js";
import { anthropicText, anthropicToolCalls, openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox, type ScriptedCall } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const wire = {
  openai: { calls: openaiToolCalls, text: openaiText },
  anthropic: { calls: anthropicToolCalls, text: anthropicText },
} as const;

/** The tool results a request carries, as the provider's wire has them. */
function resultsSent(provider: "openai" | "anthropic", request: LoggedRequest): unknown[] {
  const body = request.json();
  if (provider === "openai") return body.messages.filter((m: { role: string }) => m.role === "tool");
  return body.messages.at(-1).content.filter((b: { type: string }) => b.type === "tool_result");
}

const CALLS: ScriptedCall[] = [
  { id: "c_bad", name: "read", input: { path: "nope.txt" } },
  { id: "c_good", name: "read", input: { path: "here.txt" } },
];

describe.each(["openai", "anthropic"] as const)("%s", (provider) => {
  it("a failed call is sent back marked as failed, the one beside it that worked is not", async () => {
    writeFileSync(join(box.cwd, "here.txt"), "fine\n");
    server.enqueue({ body: wire[provider].calls(CALLS) }, { body: wire[provider].text("One file is missing.") });
    const run = await box.awl(["-p", "read them", "--no-session"], { env: providerEnv(provider, server.url) });
    expect(run.code, run.stderr).toBe(0);
    const sent = resultsSent(provider, server.requests[1]!);
    if (provider === "openai")
      expect(sent).toEqual([
        { role: "tool", tool_call_id: "c_bad", content: "Error: no such file: nope.txt" },
        { role: "tool", tool_call_id: "c_good", content: "1\tfine" },
      ]);
    else
      expect(sent).toMatchObject([
        { type: "tool_result", tool_use_id: "c_bad", content: "Error: no such file: nope.txt", is_error: true },
        { type: "tool_result", tool_use_id: "c_good", content: "1\tfine" },
      ]);
    if (provider === "anthropic") expect(sent[1]).not.toHaveProperty("is_error");
  });
});

it("an MCP tool's isError reaches an OpenAI-compatible model as an Error: text", async () => {
  const files = join(box.root, "files");
  mkdirSync(files);
  mkdirSync(join(box.home, ".config", "awl"), { recursive: true });
  writeFileSync(join(box.home, ".config", "awl", "config.json"), JSON.stringify({
    mcpServers: { fs: { command: FILESYSTEM, args: [files] } },
    // The std tools and the server's fourteen tools pass 3 000 tokens: a model of unknown window would be looked up first.
    models: { "test-model": { context_window: 128000 } },
  }));
  server.enqueue({ body: openaiToolCalls([{ id: "c_mcp", name: "fs_read_text_file", input: { path: "/etc/hostname" } }]) }, { body: openaiText("Not allowed.") });
  const run = await box.awl(["-p", "read it", "--no-session", "--allow", "fs_read_text_file"], { env: providerEnv("openai", server.url) });
  expect(run.code, run.stderr).toBe(0);
  const [sent] = resultsSent("openai", server.requests[1]!) as { content: string }[];
  // The server's text is "Access denied - ..."; the "Error: " is awl's.
  expect(sent!.content).toMatch(/^Error: Access denied - path outside allowed directories: \/etc\/hostname/);
}, 60_000);

it("a stream-json conversation sends a failed call marked too, and reports it as is_error", async () => {
  server.enqueue({ body: openaiToolCalls([CALLS[0]!]) }, { body: openaiText("Missing.") });
  const line = JSON.stringify({ type: "user", message: { role: "user", content: "read it" } });
  const run = await box.awl(["--input-format", "stream-json", "--output-format", "stream-json", "--no-session"], { env: providerEnv("openai", server.url), input: `${line}\n` });
  expect(run.code, run.stderr).toBe(0);
  expect(resultsSent("openai", server.requests[1]!)).toEqual([{ role: "tool", tool_call_id: "c_bad", content: "Error: no such file: nope.txt" }]);
  const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  expect(events).toContainEqual(expect.objectContaining({ type: "tool_end", tool_use_id: "c_bad", result: expect.objectContaining({ is_error: true, content: "no such file: nope.txt" }) }));
});
