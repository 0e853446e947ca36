/**
 * Esc while `fetch` waits for a slow page (docs/std-tools.md, issue 28): the block ends cancelled, the request is
 * dropped (the server sees its connection close), and the next prompt works.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiToolCalls } from "../e2e/support.js";
import { openaiAnswer } from "../cli/openai-answer.js";
import { tmuxTest } from "../cli/tmux-terminal.js";
import { startSite, type Site } from "./site.js";

const tty = tmuxTest();
let site: Site;
beforeEach(async () => {
  site = await startSite();
});
afterEach(() => site.close());

describe("fetch in the terminal", () => {
  it("Esc while fetch waits for a page: the block ends cancelled, the request is dropped, the next prompt works", { timeout: 90_000 }, async () => {
    let arrived: () => void = () => {};
    let dropped: () => void = () => {};
    const asked = new Promise<void>((resolve) => (arrived = resolve));
    const gone = new Promise<void>((resolve) => (dropped = resolve));
    // The page never comes: the response is held open until the client goes away.
    site.route("/slow", (req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<html><body>");
      req.socket.on("close", dropped);
      arrived();
    });
    tty.server.enqueue({ body: openaiToolCalls([{ id: "f1", name: "fetch", input: { url: `${site.url}/slow` } }]) }, openaiAnswer("Still here."));
    await tty.start({ args: ["--allow", "network(127.0.0.1)"] });
    await tty.send("read the page");
    await tty.terminal.waitFor(/[⠀-⣿] fetch .*slow/);
    // Esc once the request is out (pressed earlier, it would cancel before any request: nothing to drop).
    await asked;
    await tty.terminal.keys("Escape");
    const screen = await tty.terminal.waitFor(/⊘ fetch .*slow[^]*\n>/);
    expect(screen).not.toMatch(/✓ fetch/);
    await gone;
    await tty.send("again");
    await tty.terminal.waitFor(/Still here\.\n>/);
  });
});
