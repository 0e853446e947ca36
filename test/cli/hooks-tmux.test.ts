/** Hooks in a real terminal (tmux), against the local replay server: asked-again trust, Notification, Esc. */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest, type LaunchOptions } from "./tmux-terminal.js";

const tty = tmuxTest();

const RUN = `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } }, required = { "command" } },
  function(input) return "ran " .. input.command end)\n`;

async function startIn(project: string, options: LaunchOptions = {}): Promise<string> {
  const { home, command } = awlCommand(tty.server, { args: ["--no-std-tools"], ...options, extensions: { "run.lua": RUN, ...options.extensions } });
  await tty.terminal.start(`cd ${project} && ${command}; echo "[awl exited $?]"; sleep 60`);
  return home;
}

/** The JSON a hook writes to `path` (`cat > path` makes the file before it writes: wait until it is whole). */
async function waitForJsonFile(path: string): Promise<unknown> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(path)) {
      try {
        return JSON.parse(readFileSync(path, "utf8"));
      } catch {
        // still being written
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return JSON.parse(readFileSync(path, "utf8"));
}

describe("hooks in the terminal", () => {
  it("after trust, a hook added to .awl/config.json is asked about with the change shown; n leaves it out, y runs it", async () => {
    const project = tempDir("awl-proj-");
    mkdirSync(join(project, ".awl"), { recursive: true });
    writeFileSync(join(project, ".awl", "config.json"), "{}\n");
    const configFile = JSON.stringify({ trusted_folders: [realpathSync(project)] });
    // The first start pins what the trusted folder holds (no hook).
    const home = await startIn(project, { configFile });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    writeFileSync(join(project, ".awl", "config.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo HOOK-CTX-9" }] }] } }));
    await tty.reopen();
    tty.server.enqueue(openaiAnswer("First."), openaiAnswer("Second."));
    await startIn(project, { home });
    const asked = (await tty.terminal.waitFor(/Trust the new content\?/)).replace(/\n\s*/g, " ");
    expect(asked).toContain('changed since you trusted it: added hook "UserPromptSubmit: echo HOOK-CTX-9"');
    await tty.terminal.type("n");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/First\.\n>/);
    expect(JSON.stringify(tty.server.requests[0]!.json())).not.toContain("HOOK-CTX-9");
    await tty.terminal.keys("C-d");
    await tty.terminal.waitFor(/\[awl exited 0\]/);

    await tty.reopen();
    await startIn(project, { home });
    await tty.terminal.waitFor(/Trust the new content\?/);
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/Second\.\n>/);
    expect(JSON.stringify(tty.server.requests[1]!.json())).toContain("HOOK-CTX-9");
  });

  it("a Notification hook hears that awl waits for a permission answer, while the question is shown", async () => {
    const project = tempDir("awl-proj-");
    const out = join(tempDir("awl-out-"), "notified.json");
    const configFile = JSON.stringify({ hooks: { Notification: [{ hooks: [{ type: "command", command: `cat > ${out}` }] }] } });
    tty.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls" } }]) }, openaiAnswer("Done."));
    await startIn(project, { configFile });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("go");
    await tty.terminal.waitFor(/\? run wants to run[\s\S]*y allow once/);
    expect(await waitForJsonFile(out)).toMatchObject({ hook_event_name: "Notification", message: "awl needs your permission to use run", notification_type: "permission_prompt" });
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Done\.\n>/);
    // /hooks lists it, with where it is written.
    await tty.send("/hooks");
    await tty.terminal.waitFor(/Notification {2}command "cat > .*notified\.json"\s+\S*config\.json:1 {2}active, deadline 60 s/);
  });

  it("Esc stops a hook that runs (a handler with a long deadline that never returns) and the next prompt works", async () => {
    const project = tempDir("awl-proj-");
    const hang = `awl.on("user_prompt", function(e) if e.prompt == "hang" then while true do end end end, { timeout_ms = 600000 })\n`;
    tty.server.enqueue(openaiAnswer("Hi."));
    await startIn(project, { extensions: { "hang.lua": hang } });
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hang");
    // The turn is under way (its spinner shows), held by the hook.
    await tty.terminal.waitFor(/esc to (interrupt|cancel)|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/i);
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/^>\s*$/m);
    await tty.send("hi");
    await tty.terminal.waitFor(/Hi\.\n>/);
    // Nothing was sent for the stopped turn; stopping is no failure of the hook.
    expect(tty.server.requests).toHaveLength(1);
    expect(await tty.terminal.screen()).not.toContain("hook failed");
  });

  it("hooks reload with their extension: an edit replaces the handlers at the next turn, a removal drops them", async () => {
    const project = tempDir("awl-proj-");
    const version = (tag: string): string => `awl.on("user_prompt", function() return { context = "HOOK-${tag}" } end)\n`;
    const home = await startIn(project, { extensions: { "hk.lua": version("V1") } });
    const file = join(home, ".config", "awl", "extensions", "hk.lua");
    const sent = (i: number): string => JSON.stringify(tty.server.requests[i]!.json());
    await tty.terminal.waitFor(/^>\s*$/m);
    tty.server.enqueue(openaiAnswer("One."), openaiAnswer("Two."), openaiAnswer("Three."));
    await tty.send("first");
    await tty.terminal.waitFor(/One\.\n(.*\n)*>/);
    expect(sent(0)).toContain("HOOK-V1");
    // What a hook gives the model is in the transcript too, above the answer.
    expect(await tty.terminal.screen()).toMatch(/hook context: HOOK-V1[\s\S]*One\./);

    writeFileSync(file, version("V2"));
    await tty.terminal.waitFor(/reloaded hk/);
    await tty.send("second");
    await tty.terminal.waitFor(/Two\.\n(.*\n)*>/);
    // The first prompt's context stays in the history; the new prompt got the new version's.
    const count = (text: string, what: string): number => text.split(what).length - 1;
    expect(sent(1)).toContain("HOOK-V2");
    expect(count(sent(1), "HOOK-V1")).toBe(1);

    writeFileSync(file, "-- no hooks any more\n");
    await tty.terminal.waitFor(/reloaded hk[\s\S]*reloaded hk/);
    await tty.send("third");
    await tty.terminal.waitFor(/Three\.\n(.*\n)*>/);
    expect(count(sent(2), "HOOK-V")).toBe(2);
  });
});
