import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { limitResult, pruneSpillDirs, runSpillDir, SPILL_KEEP_DAYS } from "../../src/tools/spill.js";
import { SecretScrubber } from "../../src/util/secrets.js";
import { tempDir } from "../support/temp-dir.js";

let dir: string;
beforeEach(() => {
  dir = tempDir("awl-spill-");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("limitResult", () => {
  it("leaves a result within the limit alone and writes nothing", async () => {
    const spillDir = join(dir, "spill");
    expect(await limitResult("12345", "t", "id", { limit: 5, spillDir })).toEqual({ content: "12345" });
    expect(() => readdirSync(spillDir)).toThrow(); // not even created
  });

  it("cuts a long result, spills the whole text and tells the model where", async () => {
    const spillDir = join(dir, "spill");
    const text = "abcdefghij".repeat(10);
    const result = await limitResult(text, "read", "call_1/../x", { limit: 25, spillDir });
    const file = join(spillDir, "read-call_1____x.txt");
    expect(result.spill_file).toBe(file);
    expect(result.content).toBe(`${text.slice(0, 25)}\n\n[awl: output cut to the first 25 of 100 characters; the whole output is in ${file}]`);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(statSync(spillDir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("replaces every known key with [REDACTED] in the spill file; the model's text is cut as before", async () => {
    const key = "sk-live-0123456789";
    const text = `HEAD ${"x".repeat(40)} KEY=${key} tail KEY=${key}`;
    const result = await limitResult(text, "env", "c1", { limit: 10, spillDir: dir, scrub: new SecretScrubber([key]) });
    expect(readFileSync(result.spill_file!, "utf8")).toBe(`HEAD ${"x".repeat(40)} KEY=[REDACTED] tail KEY=[REDACTED]`);
    expect(result.content).toBe(`${text.slice(0, 10)}\n\n[awl: output cut to the first 10 of ${text.length} characters; the whole output is in ${result.spill_file}]`);
  });

  it("never overwrites an earlier spill with the same call id", async () => {
    const options = { limit: 1, spillDir: dir };
    const first = await limitResult("first", "t", "same", options);
    const second = await limitResult("second", "t", "same", options);
    expect(first.spill_file).not.toBe(second.spill_file);
    expect(readFileSync(first.spill_file!, "utf8")).toBe("first");
    expect(readFileSync(second.spill_file!, "utf8")).toBe("second");
  });

  it("spills a text of many pieces whole, its surrogate pairs too (one across each piece's end)", async () => {
    const text = `${"a".repeat(32 * 1024 - 1)}😀${"é".repeat(40_000)}😀${"😀".repeat(30_000)}`;
    const result = await limitResult(text, "t", "big", { limit: 10, spillDir: dir });
    expect(readFileSync(result.spill_file!, "utf8")).toBe(text);
  });

  it("does not split a surrogate pair", async () => {
    const result = await limitResult("ab😀cd", "t", "i", { limit: 3, spillDir: dir });
    expect(result.content.startsWith("ab\n\n[awl: output cut to the first 2 of 6 characters")).toBe(true);
  });

  it("still cuts, and says so, when the spill file cannot be written", async () => {
    const blocker = join(dir, "blocker");
    writeFileSync(blocker, "a file where the folder should be");
    const result = await limitResult("0123456789", "t", "i", { limit: 4, spillDir: join(blocker, "sub") });
    expect(result.spill_file).toBeUndefined();
    expect(result.content).toMatch(/^0123\n\n\[awl: output cut to the first 4 of 10 characters; the whole output could not be saved: .+\]$/);
  });
});

describe("runSpillDir", () => {
  it("names the folder by the run's start as toISOString writes it, `-` for `:` and `.`, then the pid and a kind", () => {
    for (const at of ["2026-01-02T03:04:05.006Z", "2026-12-31T23:59:59.999Z", "1999-10-09T10:10:10.100Z"]) {
      const name = at.replace(/[:.]/g, "-");
      expect(runSpillDir(dir, new Date(at))).toBe(join(dir, "spill", `${name}-${process.pid}`));
      expect(runSpillDir(dir, new Date(at), "mcp")).toBe(join(dir, "spill", `${name}-${process.pid}-mcp`));
    }
  });
});

describe("pruneSpillDirs", () => {
  it("removes the run folders older than the days kept, and nothing else", async () => {
    const day = 24 * 60 * 60 * 1000;
    const now = Date.parse("2026-12-20T12:00:00.000Z");
    const gone = 2 ** 22 + 12345; // above Linux's largest pid: no such process
    const folder = (at: number, pid: number, suffix = "") => {
      const path = `${runSpillDir(dir, new Date(at))}${suffix}`.replace(`-${process.pid}`, `-${pid}`);
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, "bash-1.txt"), "output\n");
      return path.slice(join(dir, "spill").length + 1);
    };
    const old = folder(now - (SPILL_KEEP_DAYS + 1) * day, gone);
    const oldMcp = folder(now - (SPILL_KEEP_DAYS + 1) * day, gone, "-mcp");
    const recent = folder(now - (SPILL_KEEP_DAYS - 1) * day, gone);
    const stillRunning = folder(now - (SPILL_KEEP_DAYS + 1) * day, process.pid); // a session open for days
    mkdirSync(join(dir, "spill", "notes-of-mine"));
    await pruneSpillDirs(join(dir, "spill"), now);
    const left = readdirSync(join(dir, "spill")).sort();
    expect(left).toEqual([recent, stillRunning, "notes-of-mine"].sort());
    expect(left).not.toContain(old);
    expect(left).not.toContain(oldMcp);
  });

  it("does nothing when there is no spill folder yet", async () => {
    await expect(pruneSpillDirs(join(dir, "none"))).resolves.toBeUndefined();
  });
});
