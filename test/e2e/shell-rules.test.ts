// Command rules through the built `awl -p` and the real `bash` tool (issue 22 item 2): a scripted model runs
// every shell form that deletes a file; under `--deny 'bash(rm:*)'` in bypass mode (where everything else runs)
// each is refused and every file is still there; under `--allow 'bash(echo:*)'` the tricks that widened it run
// nothing but echo.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { RM_FORMS } from "../permissions/shell-forms.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/** The tool messages awl sent back in the second request, by call id. */
function results(): Map<string, string> {
  const messages = server.requests[1]!.json().messages as { role: string; tool_call_id?: string; content: string }[];
  return new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, m.content]));
}

describe("bad input through the built awl (issue 22)", () => {
  it("a NUL byte or text that is not UTF-8, in a command or a path, is denied outright, in bypass mode too", async () => {
    const calls = [
      { id: "n1", name: "bash", input: { command: "echo a\u0000; touch made1" } },
      { id: "n2", name: "bash", input: { command: "echo \uD800; touch made2" } },
      { id: "n3", name: "write", input: { path: "made3\u0000.txt", content: "x" } },
      { id: "n4", name: "write", input: { path: "made4\uDC00.txt", content: "x" } },
      { id: "ok", name: "bash", input: { command: "echo fine" } },
    ];
    server.enqueue({ body: openaiToolCalls(calls) }, { body: openaiText("done") });
    const result = await box.awl(["-p", "go", "--dangerously-skip-permissions"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const sent = results();
    expect(sent.get("ok")).toContain("fine");
    for (const id of ["n1", "n2", "n3", "n4"]) expect(sent.get(id), id).toContain("permission denied");
    for (const name of ["made1", "made2"]) expect(existsSync(join(box.cwd, name)), name).toBe(false);
    expect(readdirSync(box.cwd).filter((f) => f.startsWith("made"))).toEqual([]);
  }, 60_000);
});

describe("shell forms through the bash tool", () => {
  it("--deny 'bash(rm:*)' refuses every form of rm, in bypass mode, and every file is still there", async () => {
    const calls = RM_FORMS.map((form, i) => ({ id: `c${i}`, name: "bash", input: { command: form.replaceAll("victim", `victim${i}`) } }));
    for (let i = 0; i < RM_FORMS.length; i++) writeFileSync(join(box.cwd, `victim${i}`), "keep");
    server.enqueue({ body: openaiToolCalls([...calls, { id: "control", name: "bash", input: { command: "echo still-here; ls victim0" } }]) }, { body: openaiText("done") });
    const result = await box.awl(["-p", "go", "--dangerously-skip-permissions", "--deny", "bash(rm:*)"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const sent = results();
    expect(sent.get("control")).toContain("still-here\nvictim0");
    for (const [i, call] of calls.entries()) {
      expect(sent.get(call.id), call.input.command).toContain("permission denied");
      expect(existsSync(join(box.cwd, `victim${i}`)), call.input.command).toBe(true);
    }
  }, 120_000);

  it("--allow 'bash(echo:*)' runs echo, and none of the tricks that widened it", async () => {
    const tricks = ["echo hi #'\ntouch made1 #'", "echo $'\\'' ; touch made2 #'", "echo a#b; touch made3", "echo `echo \\`touch made4\\``", "! while true; do echo x; touch made5; break; done", "echo $(touch made6)", "echo hi > made7", "r\\\nm victim"];
    writeFileSync(join(box.cwd, "victim"), "keep");
    const calls = tricks.map((command, i) => ({ id: `t${i}`, name: "bash", input: { command } }));
    server.enqueue({ body: openaiToolCalls([...calls, { id: "plain", name: "bash", input: { command: "echo 'a; b' # touch made0" } }]) }, { body: openaiText("done") });
    const result = await box.awl(["-p", "go", "--allow", "bash(echo:*)"], { env: providerEnv("openai", server.url) });
    expect(result.code, result.stderr).toBe(0);
    const sent = results();
    expect(sent.get("plain")).toContain("a; b");
    for (const call of calls) expect(sent.get(call.id), call.input.command).toContain("permission denied");
    for (let i = 0; i <= 7; i++) expect(existsSync(join(box.cwd, `made${i}`)), `made${i}`).toBe(false);
    expect(existsSync(join(box.cwd, "victim"))).toBe(true);
    // The rules offered for a loop are its commands, never its keywords.
    expect(sent.get("t4")).toContain("--allow 'bash'");
  }, 120_000);
});
