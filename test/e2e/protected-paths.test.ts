// Protected paths (SPEC §13, issue 22 item 4) and path rules on a kind (7d), through the built `awl -p` with a
// scripted model: no terminal, so an ask is a deny.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { runToolBatch, withServerAndSandbox, type Sandbox, type ScriptedCall } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const run = (calls: ScriptedCall[], flags: string[]) => runToolBatch(server, box, calls, flags);

describe("protected paths", () => {
  const targets = (): string[] => [
    ".git/config",
    ".git/hooks/pre-commit",
    ".awl/config.json",
    ".awl/extensions/planted.lua",
    "AGENTS.md",
    "CLAUDE.md",
    join(box.home, ".config", "awl", "config.json"),
    join(box.home, ".config", "awl", "extensions", "planted.lua"),
    join(box.home, ".local", "share", "awl", "planted"),
  ];

  for (const [name, flags] of [
    ["accept-edits mode", ["--permission-mode", "accept-edits"]],
    ["allow rules for the tools and every path", ["--allow", "write", "--allow", "edit(**)", "--allow", "edit(/**)"]],
  ] as const) {
    it(`under ${name} a write to each is asked for (so denied here), and nothing is written`, async () => {
      mkdirSync(join(box.cwd, ".git"));
      writeFileSync(join(box.cwd, ".git", "config"), "[core]\n");
      writeFileSync(join(box.cwd, "AGENTS.md"), "Be careful.\n");
      const calls: ScriptedCall[] = targets().flatMap((path, i) => [
        { id: `w${i}`, name: "write", input: { path, content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" } },
      ]);
      calls.push({ id: "e0", name: "edit", input: { path: ".git/config", old_string: "[core]", new_string: "[core]\n\tfsmonitor = x" } });
      calls.push({ id: "e1", name: "edit", input: { path: "AGENTS.md", old_string: "careful", new_string: "reckless" } });
      calls.push({ id: "ok", name: "write", input: { path: "src/fine.txt", content: "fine\n" } });
      const results = await run(calls, [...flags]);
      for (const [id, content] of Object.entries(results)) {
        if (id === "ok") continue;
        expect(content, id).toContain("awl asks before every write there");
        expect(content, id).toContain("no rule allows it");
      }
      expect(readFileSync(join(box.cwd, ".git", "config"), "utf8")).toBe("[core]\n");
      expect(readFileSync(join(box.cwd, "AGENTS.md"), "utf8")).toBe("Be careful.\n");
      for (const path of targets().slice(1)) if (path !== "AGENTS.md") expect(existsSync(resolve(box.cwd, path)), path).toBe(false);
      expect(readFileSync(join(box.cwd, "src", "fine.txt"), "utf8")).toBe("fine\n");
    });
  }

  it("bypass mode writes there; reading there needs no answer", async () => {
    mkdirSync(join(box.cwd, ".git"));
    writeFileSync(join(box.cwd, ".git", "config"), "[core]\n");
    const results = await run(
      [
        { id: "r", name: "read", input: { path: ".git/config" } },
        { id: "w", name: "write", input: { path: ".git/description", content: "x\n" } },
      ],
      ["--dangerously-skip-permissions"],
    );
    expect(results.r).toBe("1\t[core]");
    expect(readFileSync(join(box.cwd, ".git", "description"), "utf8")).toBe("x\n");
  });
});

describe("a path rule on a kind", () => {
  it("--deny 'read(.env)' stops read, grep, find and ls on it; --deny 'edit(secrets/**)' stops write too", async () => {
    writeFileSync(join(box.cwd, ".env"), "TOKEN=hunter2\n");
    const results = await run(
      [
        { id: "read", name: "read", input: { path: ".env" } },
        { id: "grep", name: "grep", input: { pattern: "TOKEN", path: ".env" } },
        { id: "find", name: "find", input: { pattern: "*", path: ".env" } },
        { id: "ls", name: "ls", input: { path: ".env" } },
        { id: "write", name: "write", input: { path: "secrets/key", content: "x" } },
      ],
      ["--deny", "read(.env)", "--deny", "edit(secrets/**)", "--permission-mode", "accept-edits"],
    );
    for (const id of ["read", "grep", "find", "ls"]) expect(results[id], id).toContain('the rule "read(.env)" denies it');
    expect(results.write).toContain('the rule "edit(secrets/**)" denies it');
    expect(existsSync(join(box.cwd, "secrets"))).toBe(false);
  });
});
