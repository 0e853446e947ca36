// awl.fs.open_spill: a file for an output saved whole, with every API key awl knows of replaced as it is written
// (the environment's and those the main thread sent), a key split between two writes too.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, contentOf, poolOf, tempDir } from "./helpers.js";

const ENV_KEY = "sk-env-0123456789abcdef";
const FILE_KEY = "cfg-key-9876543210";

const SPILLER = `
awl.register_tool {
  name = "spill",
  description = "writes pieces to a spill file",
  parameters = { type = "object", properties = { path = { type = "string" }, pieces = { type = "array" }, close = { type = "boolean" } } },
  run = function(args)
    local f, err = awl.fs.open_spill(args.path)
    if not f then return { content = err, is_error = true } end
    for _, piece in ipairs(args.pieces) do assert(f:write(piece)) end
    if args.close then
      assert(f:close())
      local ok, message = f:write("more")
      return tostring(ok) .. " " .. tostring(message)
    end
    return "open"
  end,
}`;

// Keeps a spill file from one call to the next, and opens another file with io.open in the second.
const KEEPER = `
local kept
awl.register_tool {
  name = "keep",
  description = "keeps a spill file past its call",
  parameters = { type = "object", properties = { path = { type = "string" }, other = { type = "string" } } },
  run = function(args)
    if not kept then
      kept = assert(awl.fs.open_spill(args.path))
      assert(kept:write("first call\\n"))
      return "kept"
    end
    local other = assert(io.open(args.other, "w"))
    local ok, message = kept:write("second call\\n")
    other:write("the other file\\n")
    other:close()
    return tostring(ok) .. " " .. tostring(message)
  end,
}`;

function spillPool() {
  return poolOf({ spiller: SPILLER, keeper: KEEPER }, { env: { HOME: tempDir(), MY_API_KEY: ENV_KEY }, secrets: [FILE_KEY], maxSlots: 1 });
}

describe("awl.fs.open_spill", () => {
  it("replaces the environment's keys and the ones awl was given, even when a key is written a byte at a time", async () => {
    const { pool } = spillPool();
    const dir = tempDir();
    const text = `start ${ENV_KEY} middle ${FILE_KEY}${ENV_KEY} end ${FILE_KEY}`;
    const want = "start [REDACTED] middle [REDACTED][REDACTED] end [REDACTED]";
    // One piece per byte: every place a key can be split between writes.
    const path = join(dir, "bytes.txt");
    expect(contentOf(await call(pool, "spiller", "spill", { path, pieces: [...text], close: true }))).toBe(`nil ${path}: the file is closed`);
    expect(readFileSync(path, "utf8")).toBe(want);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Pieces of every size from 1 to 40, and the whole text at once.
    for (const size of [1, 2, 3, 7, 13, 40, text.length]) {
      const pieces: string[] = [];
      for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
      const file = join(dir, `size-${size}.txt`);
      await call(pool, "spiller", "spill", { path: file, pieces, close: true });
      expect(readFileSync(file, "utf8"), `pieces of ${size}`).toBe(want);
    }
  });

  it("closes a file its handler left open when the call ends, with the bytes it held back", async () => {
    const { pool } = spillPool();
    const path = join(tempDir(), "left-open.txt");
    // The text ends with the start of a key: those bytes wait for a next write that never comes.
    const text = `output\n${ENV_KEY}\nlast ${FILE_KEY.slice(0, 5)}`;
    expect(contentOf(await call(pool, "spiller", "spill", { path, pieces: [text] }))).toBe("open");
    expect(readFileSync(path, "utf8")).toBe(`output\n[REDACTED]\nlast ${FILE_KEY.slice(0, 5)}`);
  });

  it("a file kept past its call is closed: a later write says so and reaches no other file", async () => {
    const { pool } = spillPool();
    const dir = tempDir();
    const [path, other] = [join(dir, "kept.txt"), join(dir, "other.txt")];
    expect(contentOf(await call(pool, "keeper", "keep", { path, other }))).toBe("kept");
    expect(contentOf(await call(pool, "keeper", "keep", { path, other }))).toBe(`nil ${path}: the file is closed`);
    expect(readFileSync(path, "utf8")).toBe("first call\n");
    expect(readFileSync(other, "utf8")).toBe("the other file\n");
  });

  it("never overwrites a file: an existing one is an error naming it, and keeps its content", async () => {
    const { pool } = spillPool();
    const path = join(tempDir(), "there.txt");
    writeFileSync(path, "kept\n");
    const outcome = await call(pool, "spiller", "spill", { path, pieces: ["new"], close: true });
    expect(outcome).toMatchObject({ status: "result", is_error: true, content: `${path}: File exists` });
    expect(readFileSync(path, "utf8")).toBe("kept\n");
  });
});
