/** `/plugins` at the interactive prompt (tmux, the built awl): the installed plugins, and switching one off. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { AWL, tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

describe("/plugins", () => {
  it("lists the installed plugins with their state and switches one off for the next start", { timeout: 90_000 }, async () => {
    const home = tempDir("awl-home-");
    const src = join(tempDir("awl-plugin-"), "kit");
    mkdirSync(join(src, "dev.awl", "extensions"), { recursive: true });
    writeFileSync(join(src, "plugin.json"), JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "kit", version: "1.2.0" }));
    writeFileSync(join(src, "dev.awl", "extensions", "kit.lua"), 'awl.register_tool("kit_echo", { type = "object" }, function() return "x" end)\n');
    execFileSync(process.execPath, [AWL, "install", "--yes", src], { env: { PATH: process.env.PATH, TMPDIR: tmpdir(), HOME: home, XDG_CONFIG_HOME: join(home, ".config") } });
    await tty.start({ home, columns: 160, rows: 40 });
    await tty.send("/plugins");
    await tty.terminal.waitFor(/kit 1\.2\.0 {2}on {2}\/.*kit/);
    await tty.send("/plugins disable kit");
    await tty.terminal.waitFor(/kit is off; it applies to awl runs started from now\./);
    const lock = JSON.parse(readFileSync(join(home, ".local/share/awl/plugins/lock.json"), "utf8"));
    expect(lock.plugins.kit.enabled).toBe(false);
    await tty.send("/plugins");
    await tty.terminal.waitFor(/kit 1\.2\.0 {2}off/);
  });
});
