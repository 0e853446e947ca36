/**
 * Slash commands from extensions (`awl.register_command`), as a person sees them: the built `awl` in tmux with a
 * user extension; /help lists them, a command prints what its handler returned, an error names file and line, an
 * edit is picked up by /reload, and a built-in's name stays the built-in's.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

function deploy(version: string): string {
  return `
awl.register_command {
  name = "deploy",
  description = "ship the build (${version})",
  handler = function(args, ctx)
    if args == "" then error("say where to: /deploy TARGET") end
    return "deployed to " .. args .. " (${version}) from " .. ctx.cwd
  end,
}
awl.register_command { name = "help", description = "mine", handler = function() return "never" end }
awl.register_command { name = "quiet", handler = function() end }
awl.register_command { name = "spin", handler = function() while true do end end }
`;
}

describe("an extension's slash commands", () => {
  it("are listed in /help, print their handler's text, show errors with file:line, and reload with the extension", { timeout: 90_000 }, async () => {
    const home = await tty.start({ extensions: { "ship.lua": deploy("v1") }, columns: 200, rows: 80, args: ["--no-std-tools"] });
    const file = join(home, ".config", "awl", "extensions", "ship.lua");

    await tty.send("/help");
    const help = await tty.terminal.waitFor(/\/deploy +ship the build \(v1\) \(extension ship\)[\s\S]*Ctrl-Z/);
    expect(help).toMatch(/\/help of the extension ship, .*ship\.lua:\d+, is not added: awl has a command of that name/);
    expect(help).toContain("/quiet");

    await tty.send("/deploy staging");
    await tty.terminal.waitFor(/deployed to staging \(v1\) from \/\S+\n/);

    await tty.send("/deploy");
    await tty.terminal.waitFor(/\/deploy failed: .*ship\.lua:6: say where to: \/deploy TARGET/);

    // A command that returns nothing prints nothing; the prompt comes back.
    await tty.send("/quiet");
    await tty.send("/DEPLOY prod");
    await tty.terminal.waitFor(/deployed to prod \(v1\)/);

    // Esc stops a command that runs on.
    await tty.send("/spin");
    await tty.terminal.waitFor(/\/spin\n(?!.*cancelled)/);
    await tty.terminal.keys("Escape");
    await tty.terminal.waitFor(/\/spin was cancelled\n/);

    writeFileSync(file, deploy("v2"));
    await tty.send("/reload");
    await tty.terminal.waitFor(/reloaded/);
    await tty.send("/deploy prod");
    await tty.terminal.waitFor(/deployed to prod \(v2\)/);
    expect(tty.server.requests).toHaveLength(0);
  });

  it("are there at once on the next start, from the registration cache, and run then", { timeout: 90_000 }, async () => {
    const home = await tty.start({ extensions: { "ship.lua": deploy("v1") }, args: ["--no-std-tools"] });
    await tty.send("/deploy once");
    await tty.terminal.waitFor(/deployed to once \(v1\)/);
    await tty.send("/exit");
    await tty.terminal.waitFor(/\[awl exited 0\]/);
    await tty.reopen();
    await tty.start({ home, args: ["--no-std-tools"], rows: 60 });
    await tty.terminal.type("/dep");
    await tty.terminal.keys("Tab");
    await tty.terminal.waitFor(/> \/deploy\s*$/m);
    await tty.terminal.type("again");
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/deployed to again \(v1\)/);
  });
});
