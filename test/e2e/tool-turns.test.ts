// Whole tool-calling turns through the built `awl -p`, against the replay server speaking each provider's wire
// format: the tools offered, the calls run in Lua workers, and the results sent back in the model's order.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LoggedRequest, ReplayServer } from "../support/replay-server.js";
import { STD_TOOLS } from "../std/support.js";
import {
  anthropicText,
  anthropicToolCalls,
  installExamples,
  openaiText,
  openaiToolCalls,
  providerEnv,
  toolNamesOffered,
  withServerAndSandbox,
  type Sandbox,
  type ScriptedCall,
} from "./support.js";

// Each call marks its start, then waits (up to 20 s) until every call of the batch has started: calls run one
// after another would never all start, and answer "alone" instead. Then it sleeps ms, and answers its tag.
const NAP = `
awl.register_tool {
  name = "nap",
  description = "Wait for the others, sleep, then answer with the tag.",
  parameters = { type = "object", properties = { ms = { type = "integer" }, tag = { type = "string" }, batch = { type = "array" } }, required = { "ms", "tag", "batch" } },
  run = function(args, ctx)
    local function started(tag) local f = io.open(ctx.cwd .. "/started-" .. tag) if f then f:close() return true end end
    io.open(ctx.cwd .. "/started-" .. args.tag, "w"):close()
    local deadline = os.time() + 20
    local function all() for _, tag in ipairs(args.batch) do if not started(tag) then return false end end return true end
    while not all() do
      if os.time() > deadline then return "alone: " .. args.tag end
      os.execute("sleep 0.02")
    end
    if args.ms > 0 then os.execute("sleep " .. (args.ms / 1000)) end
    return "tag " .. args.tag
  end,
}
`;

const RUNAWAY = `
awl.register_tool {
  name = "forever", description = "Loops forever.", timeout = 1,
  parameters = { type = "object", properties = {} },
  run = function() while true do end end,
}
awl.register_tool {
  name = "trapped", description = "Loops forever inside pcall.", timeout = 1,
  parameters = { type = "object", properties = {} },
  run = function()
    while true do pcall(function() while true do end end) end
  end,
}
`;

type Provider = "openai" | "anthropic";
const wire = {
  openai: { calls: openaiToolCalls, text: openaiText },
  anthropic: { calls: anthropicToolCalls, text: anthropicText },
} as const;

/** The tool results a request carries back, in order, in a provider-neutral form. */
function toolResults(provider: Provider, request: LoggedRequest): { id: string; content: string; is_error?: boolean }[] {
  const body = request.json();
  if (provider === "openai") {
    return body.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_call_id, content: m.content }));
  }
  const last = body.messages[body.messages.length - 1];
  expect(last.role).toBe("user");
  return last.content
    .filter((b: any) => b.type === "tool_result")
    .map((b: any) => ({ id: b.tool_use_id, content: typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join(""), ...(b.is_error && { is_error: true }) }));
}

/** The tool calls an assistant message in a request carries, in order. */
function toolCallsSent(provider: Provider, request: LoggedRequest): { id: string; name: string; input: unknown }[] {
  const body = request.json();
  if (provider === "openai") {
    const assistant = body.messages.find((m: any) => m.role === "assistant" && m.tool_calls);
    return assistant.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) }));
  }
  const assistant = body.messages.find((m: any) => m.role === "assistant");
  return assistant.content.filter((b: any) => b.type === "tool_use").map((b: any) => ({ id: b.id, name: b.name, input: b.input }));
}


let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

describe.each(["openai", "anthropic"] as const)("%s: tool turns through awl -p", (provider) => {
  // About the user's extensions: the bundled std tools (test/std/) are left out.
  const run = (prompt: string, extra: string[] = []) => box.awl(["--trust-project", "--allow", "*", "-p", prompt, "--no-std-tools", ...extra], { env: providerEnv(provider, server.url) });

  it("runs one tool call and sends its result back", async () => {
    installExamples(box, ["echo.lua"]);
    const call: ScriptedCall = { id: "call_1", name: "echo", input: { message: "héllo \"wörld\"" } };
    server.enqueue({ body: wire[provider].calls([call]) }, { body: wire[provider].text("The tool said hello.") });
    const result = await run("use echo");
    expect(result.stderr).not.toContain("awl:"); // tool progress lines only, no warning
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("The tool said hello.");
    expect(server.requests).toHaveLength(2);
    expect(toolNamesOffered(provider, server.requests[0]!)).toEqual(["echo"]);
    const offered = server.requests[0]!.json().tools[0];
    const schema = provider === "openai" ? offered.function.parameters : offered.input_schema;
    expect(schema).toEqual({ type: "object", properties: { message: { type: "string", description: "The message to echo back" } }, required: ["message"] });
    expect(toolCallsSent(provider, server.requests[1]!)).toEqual([call]);
    expect(toolResults(provider, server.requests[1]!)).toEqual([{ id: "call_1", content: "héllo \"wörld\"" }]);
  });

  it("runs three calls concurrently and answers them in the model's order, not the order they finish", async () => {
    installExamples(box, ["echo.lua", "text"]);
    box.extension("nap.lua", NAP);
    const batch = ["slow", "fast", "mid"];
    const calls: ScriptedCall[] = [
      { id: "c_slow", name: "nap", input: { ms: 400, tag: "slow", batch } },
      { id: "c_fast", name: "nap", input: { ms: 0, tag: "fast", batch } },
      { id: "c_mid", name: "nap", input: { ms: 100, tag: "mid", batch } },
      { id: "c_count", name: "word_count", input: { text: "one two\nthree\n" } },
    ];
    server.enqueue({ body: wire[provider].calls(calls, "Four at once.") }, { body: wire[provider].text("All done.") });
    // Three workers whatever the machine's core count: the three naps must be able to run side by side.
    const result = await run("use four tools", ["--lua-workers", "3"]);
    expect(result.stderr).not.toContain("awl:"); // tool progress lines only, no warning
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("All done.");
    expect(toolNamesOffered(provider, server.requests[0]!)).toEqual(["echo", "nap", "word_count"]);
    expect(toolCallsSent(provider, server.requests[1]!).map((c) => c.id)).toEqual(["c_slow", "c_fast", "c_mid", "c_count"]);
    expect(toolResults(provider, server.requests[1]!)).toEqual([
      { id: "c_slow", content: "tag slow" },
      { id: "c_fast", content: "tag fast" },
      { id: "c_mid", content: "tag mid" },
      { id: "c_count", content: "2 lines, 3 words, 14 bytes" },
    ]);
  });

  it("prints the crash with its traceback, answers every call, and stops the turn", async () => {
    installExamples(box, ["echo.lua", "crash.lua"]);
    const calls: ScriptedCall[] = [
      { id: "c_crash", name: "crash", input: {} },
      { id: "c_echo", name: "echo", input: { message: "still fine" } },
    ];
    server.enqueue({ body: wire[provider].calls(calls) });
    const result = await run("crash it", ["--output-format", "json"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/the "crash" extension crashed: .*crash\.lua:8: attempt to index a nil value/);
    expect(result.stderr).toContain("traceback");
    expect(result.stderr).toMatch(/crash\.lua:8: in /);
    expect(server.requests).toHaveLength(1); // the turn stopped after the batch
    // The conversation keeps the invariant: both calls are answered, so the next request would be valid.
    const turn = JSON.parse(result.stdout.trim().split("\n").pop()!);
    expect(turn.stop_reason).toBe("tool_crash");
    const results = turn.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === "tool_result");
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "c_crash", content: expect.stringContaining('the "crash" extension crashed'), is_error: true },
      { type: "tool_result", tool_use_id: "c_echo", content: "still fine" },
    ]);

    // The follow-up message (same session, `-c`) sends a valid request: every tool call answered, in order.
    server.enqueue({ body: wire[provider].text("Sorry, the crash tool is broken.") });
    const next = await run("what happened?", ["-c"]);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain("Sorry, the crash tool is broken.");
    expect(server.requests).toHaveLength(2);
    expect(toolCallsSent(provider, server.requests[1]!).map((c) => c.id)).toEqual(["c_crash", "c_echo"]);
    const answered = toolResults(provider, server.requests[1]!);
    expect(answered.map((r) => r.id)).toEqual(["c_crash", "c_echo"]);
    expect(answered[0]!.content).toContain('the "crash" extension crashed');
    expect(answered[1]!.content).toBe("still fine");
  });

  it("stops a runaway loop and a loop inside pcall at their timeout, and the turn goes on", async () => {
    installExamples(box, ["echo.lua"]);
    box.extension("runaway.lua", RUNAWAY);
    const calls: ScriptedCall[] = [
      { id: "c_forever", name: "forever", input: {} },
      { id: "c_trapped", name: "trapped", input: {} },
      { id: "c_echo", name: "echo", input: { message: "unaffected" } },
    ];
    server.enqueue({ body: wire[provider].calls(calls) }, { body: wire[provider].text("Two tools timed out.") });
    const result = await run("loop");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Two tools timed out.");
    const results = toolResults(provider, server.requests[1]!);
    expect(results.map((r) => r.id)).toEqual(["c_forever", "c_trapped", "c_echo"]);
    expect(results[0]!.content).toMatch(/timed out/);
    expect(results[1]!.content).toMatch(/timed out/);
    expect(results[2]!.content).toBe("unaffected");
    if (provider === "anthropic") expect(results.slice(0, 2).every((r) => r.is_error)).toBe(true);
  });
});

it("starts from the registration cache on the next run, and the Lua workers still run the call", async () => {
  installExamples(box, ["echo.lua"]);
  const env = providerEnv("openai", server.url);
  server.enqueue({ body: openaiText("no tools this time") });
  expect((await box.awl(["--trust-project", "--allow", "*", "-p", "hi"], { env })).code).toBe(0);
  // The bundled std tools are cached beside the user's own.
  expect(JSON.parse(readFileSync(join(box.home, ".cache/awl/extension-tools.json"), "utf8")).tools.map((t: any) => t.name).sort()).toEqual(["echo", ...STD_TOOLS].sort());
  server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "echo", input: { message: "from cache" } }]) }, { body: openaiText("done") });
  const second = await box.awl(["--trust-project", "--allow", "*", "-p", "echo"], { env });
  expect(second.code).toBe(0);
  expect(server.requests[1]!.body).toBe(server.requests[0]!.body.replace('"hi"', '"echo"')); // same tool bytes, cached or not
  expect(toolResults("openai", server.requests[2]!)).toEqual([{ id: "c1", content: "from cache" }]);
});

it("a registration cache that is corrupt or from another version is rebuilt, without a crash", async () => {
  // Issue 30, Bad input: cut short (a full disk, a crash while writing), another version's, and ones that parse and
  // match every file but whose lists are not lists. Each run still offers and runs the tool, and rewrites the cache.
  installExamples(box, ["echo.lua"]);
  const env = providerEnv("openai", server.url);
  const cache = join(box.home, ".cache/awl/extension-tools.json");
  server.enqueue({ body: openaiText("no tools this time") });
  expect((await box.awl(["--trust-project", "--allow", "*", "-p", "hi"], { env })).code).toBe(0);
  const good = JSON.parse(readFileSync(cache, "utf8"));
  const bad = {
    "cut short": JSON.stringify(good).slice(0, 200),
    "another version's": JSON.stringify({ ...good, format: good.format + 1, tools: [{ ...good.tools[0], name: "ghost" }] }),
    "lists that are not lists": JSON.stringify({ ...good, tools: "echo", errors: 7, unavailable: [] }),
    // As many entries as extensions, one of them not an entry: its key was read before its shape was checked (a crash).
    "an extension entry that is not one": JSON.stringify({ ...good, extensions: good.extensions.map((e: unknown, i: number) => (i === 0 ? null : e)) }),
  };
  for (const [what, text] of Object.entries(bad)) {
    writeFileSync(cache, text);
    const before = server.requests.length;
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "echo", input: { message: what } }]) }, { body: openaiText("done") });
    const run = await box.awl(["--trust-project", "--allow", "*", "-p", "echo"], { env });
    expect(run.code, `${what}: ${run.stderr}`).toBe(0);
    expect(toolNamesOffered("openai", server.requests[before]!), what).toContain("echo");
    expect(toolNamesOffered("openai", server.requests[before]!), what).not.toContain("ghost");
    expect(toolResults("openai", server.requests[before + 1]!), what).toEqual([{ id: "c1", content: what }]);
    // The same cache but for when each file was hashed (again: nothing in the damaged one could be trusted).
    const rebuilt = JSON.parse(readFileSync(cache, "utf8"));
    const hashTimesLeftOut = (c: typeof good) => ({ ...c, extensions: c.extensions.map(({ hashed_at: _, ...key }: { hashed_at: number }) => key) });
    expect(hashTimesLeftOut(rebuilt), what).toEqual(hashTimesLeftOut(good));
  }
});

it("the offline demo (the README's main command with no key) plays a tool-calling turn with the example extensions", async () => {
  const result = await box.awl(["--demo", "--trust-project", "--allow", "*", "-p", "--output-format", "json"]);
  expect(result.code).toBe(0);
  const turn = JSON.parse(result.stdout.trim().split("\n").pop()!);
  const results = turn.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === "tool_result");
  expect(results).toEqual([
    { type: "tool_result", tool_use_id: "call_demo_1", content: "Hello from a Lua extension!" },
    { type: "tool_result", tool_use_id: "call_demo_2", content: "2 lines, 5 words, 37 bytes" },
  ]);
  expect(turn.stop_reason).toBe("end_turn");
});

it("runs a batch of a dozen calls sharing two Lua workers with no listener-leak warning", async () => {
  // Calls waiting for a slot each listen for the turn's Esc: twelve of them once set off Node's
  // MaxListenersExceededWarning ("Possible EventTarget memory leak detected") on the user's screen.
  installExamples(box, ["echo.lua"]);
  const calls: ScriptedCall[] = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: "echo", input: { message: `m${i}` } }));
  server.enqueue({ body: openaiToolCalls(calls) }, { body: openaiText("all echoed") });
  const result = await box.awl(["--trust-project", "--allow", "*", "-p", "echo twelve", "--no-std-tools", "--lua-workers", "2"], { env: providerEnv("openai", server.url) });
  expect(result.stderr).not.toContain("Warning");
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("all echoed");
  expect(toolResults("openai", server.requests[1]!)).toEqual(calls.map((c, i) => ({ id: c.id, content: `m${i}` })));
});
