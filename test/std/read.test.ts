// std.read, the bundled `read` tool: through `awl tool call` and through a replayed model turn.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, replayedCall, SEVERAL_CALLS, textOf, useSandbox } from "./support.js";

const env = useSandbox();
const write = (name: string, data: string | Buffer) => writeFileSync(join(env.box.cwd, name), data);
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\tline ${from + i}`).join("\n");
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");

describe("std.read", () => {
  it("numbers the lines and pages a big file with offset and limit", SEVERAL_CALLS, async () => {
    write("big.txt", lines(5000));
    expect(textOf((await callTool(env.box, "read", { path: "big.txt", offset: 4998 })).outcome)).toBe(numbered(4998, 5000));
    expect(textOf((await callTool(env.box, "read", { path: "big.txt", offset: 10, limit: 3 })).outcome)).toBe(
      `${numbered(10, 12)}\n[lines 10-12 of 5000; read on with offset=13]`,
    );
    const first = textOf((await callTool(env.box, "read", { path: "big.txt" })).outcome).split("\n");
    expect(first).toHaveLength(2001);
    expect(first[1999]).toBe("2000\tline 2000");
    expect(first[2000]).toBe("[lines 1-2000 of 5000; read on with offset=2001]");
  });

  it("cuts long lines, stops at 40 KB, and shows CRLF text without the CR", SEVERAL_CALLS, async () => {
    // Characters, not bytes: 2000 of the 2500 two-byte é, and all 1500 three-byte 語 (4500 bytes) of a line.
    write("wide.txt", `${"é".repeat(2500)}\nshort\n${"語".repeat(1500)}\n`);
    const wide = textOf((await callTool(env.box, "read", { path: "wide.txt" })).outcome).split("\n");
    expect(wide[0]).toBe(`1\t${"é".repeat(2000)} … [line cut at 2000 characters]`);
    expect(wide[1]).toBe("2\tshort");
    expect(wide[2]).toBe(`3\t${"語".repeat(1500)}`);
    write("heavy.txt", `${"x".repeat(1000)}\n`.repeat(100));
    const heavy = textOf((await callTool(env.box, "read", { path: "heavy.txt" })).outcome).split("\n");
    expect(heavy.at(-1)).toBe("[lines 1-39 of 100 (40 KB limit); read on with offset=40]");
    write("crlf.txt", "a\r\nb\r\n");
    expect(textOf((await callTool(env.box, "read", { path: "crlf.txt" })).outcome)).toBe("1\ta\n2\tb");
  });

  it("refuses a binary file, a directory, a FIFO and a missing file clearly", SEVERAL_CALLS, async () => {
    write("blob.bin", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]));
    mkdirSync(join(env.box.cwd, "dir"));
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [join(env.box.cwd, "pipe")]);
    const error = async (path: string) => {
      const { outcome, code } = await callTool(env.box, "read", { path });
      expect(code).toBe(1);
      return outcome.status === "result" && outcome.is_error ? outcome.content : `not an error: ${JSON.stringify(outcome)}`;
    };
    expect(await error("blob.bin")).toBe("blob.bin is a binary file (8 B); read shows text files and images (png, jpeg, gif, webp)");
    expect(await error("dir")).toBe("dir is a directory; use ls to list it");
    expect(await error("pipe")).toBe("pipe is a fifo, not a regular file; read only reads files");
    expect(await error("nope.txt")).toBe("no such file: nope.txt");
    write("three.txt", "a\nb\nc");
    const past = await callTool(env.box, "read", { path: "three.txt", offset: 9 });
    expect(past).toMatchObject({ code: 1, outcome: { is_error: true, content: "offset 9 is past the end of three.txt (3 lines)" } });
    write("empty.txt", "");
    expect(textOf((await callTool(env.box, "read", { path: "empty.txt" })).outcome)).toBe("(empty file)");
  });

  it("returns an image as an image", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    write("dot.png", png);
    const { outcome } = await callTool(env.box, "read", { path: "dot.png" });
    expect(outcome).toMatchObject({
      status: "result",
      is_error: false,
      content: "dot.png: image/png, 70 B",
      images: [{ media_type: "image/png", data: png.toString("base64") }],
    });
  });

  it("shows an image to the model in a turn (OpenAI-compatible: in a user message after the tool's)", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    write("dot.png", png);
    const turn = await replayedCall(env.box, env.server, "read", { path: "dot.png" });
    expect(turn.content).toBe("dot.png: image/png, 70 B");
    expect(turn.stderr).toBe("✓ read dot.png\n  image/png, 70 B\n");
    expect(env.server.requests.at(-1)!.json().messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Images returned by the tool calls above:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
      ],
    });
  });

  it("knows jpeg, gif and webp by their first bytes, whatever the name, and refuses an image over 5 MB", SEVERAL_CALLS, async () => {
    const kinds: [string, Buffer, string][] = [
      ["photo.bin", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]), "image/jpeg"],
      ["anim", Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"), "image/gif"],
      ["pic.webp", Buffer.concat([Buffer.from("RIFF"), Buffer.from([4, 0, 0, 0]), Buffer.from("WEBPVP8 ")]), "image/webp"],
    ];
    for (const [name, bytes, type] of kinds) {
      write(name, bytes);
      expect((await callTool(env.box, "read", { path: name })).outcome).toMatchObject({
        is_error: false,
        content: `${name}: ${type}, ${bytes.length} B`,
        images: [{ media_type: type, data: bytes.toString("base64") }],
      });
    }
    write("huge.png", Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(6 * 1024 * 1024)]));
    expect((await callTool(env.box, "read", { path: "huge.png" })).outcome).toMatchObject({
      is_error: true,
      content: "huge.png is an image of 6.0 MB, over the 5.0 MB read returns; read a smaller copy (scale it down with bash first)",
    });
  });

  it("answers a model's call in a turn, its block titled with the path and showing the lines read", async () => {
    write("notes.md", "# Notes\nbuy milk\n");
    const turn = await replayedCall(env.box, env.server, "read", { path: "notes.md", offset: 2 });
    expect(turn.code).toBe(0);
    expect(turn.content).toBe("2\tbuy milk");
    expect(turn.stderr).toBe("✓ read notes.md\n  lines 2-2 of 2\n");
  });
});
