/**
 * Ctrl-V pastes the clipboard's image (docs/cli.md): through the platform's clipboard program (here a stand-in
 * `xclip` on PATH, as X11 has), saved as a file and attached as `@path`; a program that hangs, finds no image, or
 * a machine without a display, each say so and the prompt goes on.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PNG_1X1 } from "../support/images.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

/** A folder holding an `xclip` that runs `script` (sh). */
function fakeXclip(script: string): string {
  const bin = tempDir("awl-bin-");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "xclip"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, "xclip"), 0o755);
  return bin;
}

describe("Ctrl-V", () => {
  it("attaches the clipboard's image: the prompt shows @path and the request carries the picture", { timeout: 90_000 }, async () => {
    const png = join(tempDir("awl-png-"), "clip.png");
    writeFileSync(png, Buffer.from(PNG_1X1, "base64"));
    const bin = fakeXclip(`[ "$*" = "-selection clipboard -target image/png -out" ] || exit 9\ncat ${png}`);
    tty.server.enqueue(openaiAnswer("A single pixel."));
    // The picture takes the request past 3 000 tokens, when a model of unknown window is looked up first.
    const configFile = JSON.stringify({ models: { "gpt-test": { context_window: 128000 } } });
    await tty.start({ extraEnv: [`PATH=${bin}:${process.env.PATH}`, "DISPLAY=:42"], configFile });
    await tty.terminal.type("what is this ");
    await tty.terminal.keys("C-v");
    await tty.terminal.waitFor(/^> what is this @\S+\/pastes\/image-\S+\.png\s*$/m);
    await tty.terminal.keys("Enter");
    await tty.terminal.waitFor(/A single pixel\./);
    const user = (tty.server.requests[0]!.json() as { messages: Array<{ role: string; content: unknown }> }).messages.at(-1)!;
    expect(user.content).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1X1}` } });
  });

  it("says why nothing was pasted: a program that hangs (stopped), no image, no display", { timeout: 90_000 }, async () => {
    const hangs = fakeXclip("sleep 600");
    await tty.start({ extraEnv: [`PATH=${hangs}:${process.env.PATH}`, "DISPLAY=:42"] });
    await tty.terminal.keys("C-v");
    await tty.terminal.waitFor(/no image pasted \(xclip: it did not answer within 3 s\)/);
    await tty.terminal.type("still here");
    await tty.terminal.waitFor(/^> still here\s*$/m);
    await tty.reopen();
    const empty = fakeXclip('echo "Error: target image/png not available" >&2; exit 1');
    await tty.start({ extraEnv: [`PATH=${empty}:${process.env.PATH}`, "DISPLAY=:42"] });
    await tty.terminal.keys("C-v");
    await tty.terminal.waitFor(/no image pasted \(xclip: Error: target image\/png not available\)/);
    await tty.reopen();
    await tty.start();
    await tty.terminal.keys("C-v");
    await tty.terminal.waitFor(/no image pasted: there is no display to read a clipboard from/);
  });
});
