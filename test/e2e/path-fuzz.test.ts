// Generated path spellings (escapes, `..`, symlinks, doubled slashes, unicode look-alikes, case, `~`) sent as
// `read` calls through the built `awl -p` with a scripted model (and a leading U+FEFF) (no terminal: an ask is a deny). For each, what
// the permission check decided is compared with the file the tool then opened: a read inside the workspace runs
// and returns that file; one outside it, or of the denied `.env`, is denied and nothing of the file comes back.
// The expected file is worked out here independently: the spelling as the tools document it (`~` home, `\xNN`
// from 80 to FF a byte), resolved by the operating system.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { runToolBatch, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

/**
 * A small seeded generator (mulberry32): the same spellings on every run. Every bit of its output is well mixed;
 * an LCG's `state % n` would cycle through a few values in its low bits and never reach enough distinct spellings.
 */
function generator(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

const COMPONENTS = ["a.txt", "sub", "b.txt", "..", ".", "", "link-out", "link-in", "env-link", ".env", "secret.txt", ".ssh", "id_rsa", "\\x2e\\x2e", "\\x2f", "\\x2eenv", "A.TXT", "\uff41.txt", "n\\xFFx.txt", "project", "home", "~", "sub\\x2f..", "%2e%2e"];

function spellings(count: number, root: string): string[] {
  const pick = generator(2026);
  const prefixes = ["", "./", "~/", `${root}/`, "/", "../", "//"];
  // A leading U+FEFF is a character of the name, never a byte-order mark to drop (it once was, in the tools' reads).
  const out = new Set<string>(["\uFEFF.env", "\uFEFF../home/secret.txt", "\uFEFFa.txt", "\\x2e\\x2e/home/secret.txt", "\\x2eenv", "env-link", "link-out/.ssh/id_rsa", "link-in/../../home/secret.txt", "sub//..//.env", `${root}/project/../home/.ssh/id_rsa`, "n\\xFFx.txt", "~/secret.txt"]);
  while (out.size < count) {
    const parts = Array.from({ length: 1 + pick(4) }, () => COMPONENTS[pick(COMPONENTS.length)]!);
    out.add(prefixes[pick(prefixes.length)]! + parts.join(pick(4) === 0 ? "//" : "/"));
  }
  return [...out].filter((p) => p !== "");
}

/** The real file a spelling names, as the OS resolves it (symlinks of the existing part followed). */
function opened(spelling: string, cwd: string, home: string): string {
  const expanded = spelling === "~" ? home : spelling.startsWith("~/") ? home + spelling.slice(1) : spelling;
  // Each \xNN from 80 to FF is one byte; the rest of the text is UTF-8 (a latin1 string holds the bytes one each).
  const text = Buffer.concat(expanded.split(/(\\x[89a-fA-F][0-9a-fA-F])/).map((part) => (/^\\x[89a-fA-F]/.test(part) ? Buffer.from([parseInt(part.slice(2), 16)]) : Buffer.from(part)))).toString("latin1");
  let at = resolve(Buffer.from(cwd).toString("latin1"), text);
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(Buffer.from(at, "latin1"), { encoding: "latin1" });
      return Buffer.from(join(real, ...rest.reverse()), "latin1").toString();
    } catch {
      rest.push(at.slice(at.lastIndexOf("/") + 1));
      at = at.slice(0, at.lastIndexOf("/")) || "/";
    }
  }
}

describe("generated path spellings", () => {
  it("the check decides on the file the tool opens: inside runs and returns it, outside or denied returns nothing of it", { timeout: 120_000 }, async () => {
    const { cwd, home } = box;
    writeFileSync(join(cwd, "a.txt"), "IN:a.txt\n");
    mkdirSync(join(cwd, "sub"));
    writeFileSync(join(cwd, "sub", "b.txt"), "IN:sub/b.txt\n");
    writeFileSync(join(cwd, ".env"), "DENIED:.env\n");
    writeFileSync(Buffer.concat([Buffer.from(`${cwd}/n`), Buffer.from([0xff]), Buffer.from("x.txt")]), "IN:bytes\n");
    symlinkSync(home, join(cwd, "link-out"));
    symlinkSync("sub", join(cwd, "link-in"));
    symlinkSync(".env", join(cwd, "env-link"));
    writeFileSync(join(home, "secret.txt"), "OUT:secret\n");
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "OUT:key\n");

    // The model's window is told, so the long second request sends nothing but the tool results.
    mkdirSync(join(home, ".config/awl"), { recursive: true });
    writeFileSync(join(home, ".config/awl/config.json"), JSON.stringify({ models: { "test-model": { context_window: 200_000 } } }));

    const paths = spellings(70, box.root);
    const results = await runToolBatch(server, box, paths.map((path, i) => ({ id: `c${i}`, name: "read", input: { path } })), ["--deny", "read(.env)"]);
    const ws = realpathSync(cwd);
    const denied = join(ws, ".env");
    let inside = 0;
    let outside = 0;
    paths.forEach((path, i) => {
      const result = results[`c${i}`]!;
      const target = opened(path, cwd, home);
      const what = `${JSON.stringify(path)} -> ${target}: ${result}`;
      expect(result, what).not.toMatch(/OUT:|DENIED:/);
      if (target === denied || !(target === ws || target.startsWith(`${ws}/`))) {
        outside++;
        expect(result, what).toContain("permission denied");
      } else {
        inside++;
        expect(result, what).not.toContain("permission denied");
        const marker = target === join(ws, "a.txt") ? "IN:a.txt" : target === join(ws, "sub", "b.txt") ? "IN:sub/b.txt" : target === join(ws, "n\\xFFx.txt") ? "IN:bytes" : undefined;
        if (marker) expect(result, what).toContain(marker);
      }
    });
    // The spellings reach both sides of the line.
    expect(inside).toBeGreaterThan(10);
    expect(outside).toBeGreaterThan(10);
  });
});
