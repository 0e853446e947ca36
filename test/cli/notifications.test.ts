/**
 * Notifications (docs/cli.md): when the terminal reports its window lost focus, the end of a turn and a waiting
 * permission question send the configured notification; while focused, nothing is sent. awl runs in tmux under
 * `script`, which records every byte awl writes to the terminal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { notifyStyle, Notifier } from "../../src/ui/notify.js";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { awlCommand, tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

const RUN = `awl.register_tool("run", { type = "object", properties = { command = { type = "string" } }, required = { "command" } },
  function(input) return "ran " .. input.command end)\n`;

describe("notifications", () => {
  it("a turn's end and a waiting question notify only while the window is not focused (OSC 9 as configured)", { timeout: 90_000 }, async () => {
    const dir = tempDir("awl-notify-");
    const log = join(dir, "terminal.log");
    const { command } = awlCommand(tty.server, { extensions: { "run.lua": RUN }, args: ["--no-std-tools"], configFile: '{ "notifications": "osc9" }' });
    await tty.terminal.start(`script -qfec '${command.replace(/'/g, "'\\''")}' ${log}`);
    await tty.terminal.waitFor(/^>\s*$/m);
    const written = (): string => readFileSync(log, "latin1");
    expect(written()).toContain("\x1b[?1004h"); // focus reports asked for

    tty.server.enqueue(openaiAnswer("One."));
    await tty.send("first");
    await tty.terminal.waitFor(/One\.\n/);
    expect(written()).not.toContain("\x1b]9;");

    await tty.terminal.bytes("\x1b[O"); // the window lost focus
    tty.server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "run", input: { command: "ls" } }]) }, openaiAnswer("Two."));
    await tty.send("second");
    await tty.terminal.waitFor(/y allow once/);
    await expect.poll(written).toContain("\x1b]9;awl: run waits for your permission\x07");
    await tty.terminal.type("y");
    await tty.terminal.waitFor(/Two\.\n/);
    await expect.poll(written).toContain("\x1b]9;awl: the turn ended\x07");

    await tty.terminal.bytes("\x1b[I"); // focused again: the next turn's end is not told
    tty.server.enqueue(openaiAnswer("Three."));
    await tty.send("third");
    await tty.terminal.waitFor(/Three\.\n/);
    expect(written().split("\x1b]9;awl: the turn ended").length).toBe(2);
    expect(await tty.terminal.screen()).not.toMatch(/\[O|\[I/); // the reports are not typed into the prompt
  });

  it("auto is the bell, off inside tmux or screen; text cannot break out of the sequence", () => {
    expect(notifyStyle(undefined, {})).toBe("bell");
    expect(notifyStyle("auto", { TMUX: "/tmp/tmux-0/default,1,0" })).toBe("off");
    expect(notifyStyle("bell", { TMUX: "x" })).toBe("bell");
    const out: string[] = [];
    const notifier = new Notifier({ write: (t) => out.push(t) }, "osc777");
    expect(notifier.notify("focused")).toBe(false);
    notifier.setFocus(false);
    notifier.notify("a;b\x07\x1b]0;pwned");
    expect(out).toEqual(["\x1b]777;notify;awl;a,b  ]0,pwned\x07"]);
  });
});
