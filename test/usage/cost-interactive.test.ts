/** `/cost` in the interactive mode (issue 14 item 2), in a real terminal against the replay server. */
import { describe, expect, it } from "vitest";
import { openaiAnswer } from "../cli/openai-answer.js";
import { tmuxTest } from "../cli/tmux-terminal.js";

const tty = tmuxTest();

describe("/cost", () => {
  it("shows the session's and the last turn's tokens and cost, and the context use", async () => {
    // gpt-test is priced by the config file: $1 in, $2 out per million; a window of 8192 tokens.
    const configFile = JSON.stringify({ models: { "gpt-test": { context_window: 8192, prices: { input: "1", output: "2" } } } });
    tty.server.enqueue(openaiAnswer("One two three."), openaiAnswer("Four."));
    await tty.start({ configFile });
    await tty.send("count");
    await tty.terminal.waitFor(/One two three\.\n>/);
    await tty.send("more");
    await tty.terminal.waitFor(/Four\.\n>/);
    await tty.send("/cost");
    // Turn 1: 9 in, 3 out = 9 + 6 = $0.000015; turn 2: 9 in, 1 out = $0.000011; together $0.000026.
    const screen = await tty.terminal.waitFor(/context: 10 of 8\.2k \(0\.1%, window from config\)/);
    expect(screen).toMatch(/session: \$0\.000026 · ↑18 ↓4 · 2 calls/);
    expect(screen).toMatch(/last turn: \$0\.000011 · ↑9 ↓1 · 1 call/);
    expect(tty.server.requests).toHaveLength(2);
  });
  it("asks a local server for an unknown model's window (llama.cpp /props, /v1/models) and says where it came from", async () => {
    tty.server.enqueue(openaiAnswer("Hello."));
    await tty.start();
    await tty.send("hi");
    await tty.terminal.waitFor(/Hello\.\n>/);
    // Both GETs go out at once; each answer carries what either endpoint would tell.
    const told = { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ default_generation_settings: { n_ctx: 8192 }, data: [{ id: "gpt-test", max_model_len: 8192 }] }) };
    tty.server.enqueue(told, told);
    await tty.send("/cost");
    await tty.terminal.waitFor(/context: 10 of 8\.2k \(0\.1%, window from server\)/);
    expect(tty.server.requests.slice(1).map((r) => `${r.method} ${r.url}`).sort()).toEqual(["GET /props", "GET /v1/models"]);
  });
});
