/**
 * The interactive terminal (tmux) with `"search": {"backend": "provider"}`: an Anthropic answer backed by its own
 * web search shows the pages it cited under the text, once the text block ends (docs/std-tools.md, "search").
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

describe("provider-side web search in the terminal", () => {
  it("prints the cited pages under the answer", async () => {
    tty.server.enqueue({ body: readFileSync(new URL("../fixtures/anthropic/web-search.sse", import.meta.url)) });
    await tty.start({ configFile: JSON.stringify({ search: { backend: "provider" } }), extraEnv: ["AWL_PROVIDER=anthropic", "AWL_MODEL=claude-sonnet-4-5"] });
    await tty.send("When was Claude Shannon born?");
    const screen = await tty.terminal.waitFor(/Sources:\n\s+\[1\] Claude Shannon - Wikipedia — https:\/\/en\.wikipedia\.org\/wiki\/Claude_Shannon\n/);
    expect(screen).toMatch(/Petoskey, Michigan\n\nSources:\n/);
  });
});
