// Checkpoints of `awl -p` (one turn, then exit) through the built awl: a turn that runs nothing able to change files
// does not wait for a checkpoint at exit (none is taken, or the one started for a reading batch is given up), the
// store stays whole, and a rewind to that prompt still restores what later turns changed.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const store = (): string => join(box.home, ".local", "share", "awl", "checkpoints");
const run = (args: string[]) => box.awl(["--allow", "*", ...args, "--output-format", "json"], { env: providerEnv("openai", server.url) });
const records = (session: string): Record<string, unknown>[] =>
  readFileSync(join(store(), "sessions", `${session}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Every object of the store is whole: its bytes hash to its name. */
function objectsWhole(): number {
  let count = 0;
  // Given up before its first object, the store has none yet.
  if (!existsSync(join(store(), "objects"))) return 0;
  for (const prefix of readdirSync(join(store(), "objects"))) {
    for (const name of readdirSync(join(store(), "objects", prefix))) {
      const hash = createHash("sha256").update(readFileSync(join(store(), "objects", prefix, name))).digest("hex");
      expect(hash).toBe(prefix + name);
      count++;
    }
  }
  return count;
}

describe("checkpoints of a single turn (awl -p)", () => {
  it("a text-only turn takes no checkpoint, and a rewind to its prompt restores what the next turn changed", async () => {
    writeFileSync(join(box.cwd, "a.txt"), "alpha\n");
    server.enqueue({ body: openaiText("Just talk.") });
    const first = await run(["-p", "only talk"]);
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).session_id as string;
    expect(records(id)).toEqual([expect.objectContaining({ prompt: 1, when: "turn", complete: false, no_changes: true })]);

    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "a.txt", content: "changed\n" } }]) }, { body: openaiText("Done.") });
    const second = await run(["-c", "-p", "change a"]);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("changed\n");

    const listed = await box.awl(["rewind"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/ {2}1 {2}0 added, 1 modified, 0 deleted since/);
    const done = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "a.txt"), "utf8")).toBe("alpha\n");
  });

  it("a reading batch's checkpoint, started and not needed, is given up at exit: the store stays whole and usable", async () => {
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(box.cwd, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(box.cwd, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "ls", input: { path: "." } }]) }, { body: openaiText("Listed.") });
    const first = await run(["-p", "look around"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("checkpoint");
    const id = JSON.parse(first.stdout).session_id as string;
    // Saved before the exit, or given up and noted: either way one line for prompt 1 stands for it.
    const lines = records(id);
    expect(lines.some((r) => r.prompt === 1 && r.when === "turn" && (r.complete === true || r.no_changes === true))).toBe(true);
    objectsWhole();

    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "write", input: { path: "d3/f7.txt", content: "changed\n" } }]) }, { body: openaiText("Done.") });
    const second = await run(["-c", "-p", "change one"]);
    expect(second.code, second.stderr).toBe(0);
    expect(objectsWhole()).toBeGreaterThan(2000);
    const done = await box.awl(["rewind", "--to", "1", "--code", "--yes"]);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(box.cwd, "d3", "f7.txt"), "utf8")).toBe("3/7\n");
  });
});
