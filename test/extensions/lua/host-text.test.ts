// awl.fs.read_text's host side: lines cut at `maxLine` bytes, from the disk (lines spanning its 1 MB read chunks)
// and from text a host served whole (an editor's buffer over ACP), the same way.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readText, textOfBytes } from "../../../src/extensions/lua/worker/host-text.js";
import { tempDir } from "../../support/temp-dir.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const MB = 1024 * 1024;
const text = `short\n${"a".repeat(3 * MB)}\r\nmiddle\n${"b".repeat(MB - 3)}\nend`;

describe("read_text's maxLine", () => {
  it("cuts each line's text at maxLine bytes, keeping its line ending, from the disk and from a host's text alike", () => {
    dir = tempDir("awl-host-text-");
    const file = join(dir, "t.txt");
    writeFileSync(file, text);
    const want = `short\n${"a".repeat(10)}\nmiddle\n${"b".repeat(10)}\nend`;
    const [fromDisk, diskInfo] = readText(file, { offset: 1, limit: 10, maxLine: 10 });
    expect(Buffer.from(fromDisk as Uint8Array).toString()).toBe(want);
    expect(diskInfo).toMatchObject({ total_lines: 5, first_line: 1, last_line: 5 });
    const [fromHost, hostInfo] = textOfBytes(Buffer.from(text), { offset: 1, limit: 10, maxLine: 10 });
    expect(Buffer.from(fromHost as Uint8Array).toString()).toBe(want);
    expect(hostInfo).toMatchObject({ total_lines: 5, first_line: 1, last_line: 5 });
    // A line of exactly maxLine bytes is whole; lines asked for from the middle are cut the same.
    const [middle] = readText(file, { offset: 3, limit: 2, maxLine: 6 });
    expect(Buffer.from(middle as Uint8Array).toString()).toBe("middle\nbbbbbb\n");
    // maxLine alone applies to the whole file.
    const [all] = readText(file, { maxLine: 5 });
    expect(Buffer.from(all as Uint8Array).toString()).toBe("short\naaaaa\nmiddl\nbbbbb\nend");
  });
});
