import { mkdirSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { defaultExtensionRoots } from "../../src/extensions/default-roots.js";
import { discoverExtensions, type ExtensionRoot } from "../../src/extensions/discover.js";
import { cachedSnapshot, extensionKeys, readToolCache, writeToolCache } from "../../src/extensions/tool-cache.js";
import { tempDir } from "../support/temp-dir.js";

// Which paths discovery stats (it runs on every start): the real statSync, watched.
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  return { ...fs, statSync: vi.fn(fs.statSync) };
});

let base: string;
beforeEach(() => {
  base = tempDir("awl-discover-");
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function file(path: string, text = "-- lua\n"): string {
  const full = join(base, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}

function root(dir: string, source: ExtensionRoot["source"] = "project"): ExtensionRoot {
  return { dir: join(base, dir), source };
}

function names(roots: ExtensionRoot[]): string[] {
  return discoverExtensions(roots).extensions.map((e) => e.name);
}

describe("extension names", () => {
  it("names single files, init.lua folders and nested folders with dots", () => {
    file("p/echo.lua");
    file("p/utils/json.lua");
    file("p/coding/edit/init.lua");
    file("p/coding/edit/helpers.lua");
    file("p/coding/edit/deep/more.lua");
    file("p/a/b/c/d.lua");
    const result = discoverExtensions([root("p")]);
    expect(result.extensions.map((e) => [e.name, e.file])).toEqual([
      ["a.b.c.d", join(base, "p/a/b/c/d.lua")],
      ["coding.edit", join(base, "p/coding/edit/init.lua")],
      ["echo", join(base, "p/echo.lua")],
      ["utils.json", join(base, "p/utils/json.lua")],
    ]);
    expect(result.problems).toEqual([]);
    expect(result.extensions[0]).toEqual({ name: "a.b.c.d", file: join(base, "p/a/b/c/d.lua"), folder: join(base, "p"), source: "project" });
  });

  it("ignores non-Lua files, hidden entries and a bare .lua", () => {
    file("p/readme.md");
    file("p/.hidden.lua");
    file("p/.git/x.lua");
    file("p/.lua");
    file("p/ok.lua");
    expect(names([root("p")])).toEqual(["ok"]);
  });

  it("stats no plain file that is not .lua (the build's .luac beside each bundled extension): only what may be one", () => {
    file("p/read.lua");
    file("p/read.luac");
    file("p/README.md");
    file("p/tool/init.lua");
    vi.mocked(statSync).mockClear();
    expect(names([root("p")])).toEqual(["read", "tool"]);
    const statted = vi.mocked(statSync).mock.calls.map(([path]) => String(path).slice(base.length + 1));
    expect(statted.filter((path) => !path.endsWith(".lua") && path !== "p/tool")).toEqual(["p"]);
  });

  it("leaves out `_` files and folders: modules the extensions beside them share", () => {
    file("p/read.lua");
    file("p/_text.lua");
    file("p/_lib/diff.lua");
    file("p/sub/_more.lua");
    expect(names([root("p")])).toEqual(["read"]);
  });

  it("gives the same order whatever order the files were created in", () => {
    for (const name of ["zeta", "Alpha", "beta", "Z_x", "a-b"]) file(`p/${name}.lua`);
    expect(names([root("p")])).toEqual(["Alpha", "Z_x", "a-b", "beta", "zeta"]);
  });

  it("prefers x.lua over x/init.lua in one folder and reports the clash", () => {
    file("p/x.lua");
    file("p/x/init.lua");
    const result = discoverExtensions([root("p")]);
    expect(result.extensions.map((e) => e.file)).toEqual([join(base, "p/x.lua")]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.message).toContain(`two files define extension "x"`);
    expect(result.problems[0]!.message).toContain(join(base, "p/x/init.lua"));
  });
});

describe("precedence", () => {
  it("lets a project extension shadow a user one and reports it", () => {
    file("project/tool.lua");
    file("user/tool.lua");
    file("user/only-user.lua");
    const result = discoverExtensions([root("project"), root("user", "user")]);
    expect(result.extensions.map((e) => [e.name, e.source])).toEqual([
      ["only-user", "user"],
      ["tool", "project"],
    ]);
    expect(result.shadowed).toEqual([
      expect.objectContaining({ name: "tool", file: join(base, "user/tool.lua"), shadowed_by: join(base, "project/tool.lua") }),
    ]);
  });

  it("builds the roots: flag folders, then .awl/extensions, then the user folder ($XDG_CONFIG_HOME honoured), then bundled", () => {
    const roots = defaultExtensionRoots({
      cwd: "/work/proj",
      env: { HOME: "/home/u", XDG_CONFIG_HOME: "/cfg" },
      extraDirs: ["more", "/abs"],
      bundledDir: "/pkg/extensions",
    });
    expect(roots).toEqual([
      { dir: "/work/proj/more", source: "flag" },
      { dir: "/abs", source: "flag" },
      { dir: "/work/proj/.awl/extensions", source: "project" },
      { dir: "/cfg/awl/extensions", source: "user" },
      { dir: "/pkg/extensions", source: "bundled" },
    ]);
    expect(defaultExtensionRoots({ cwd: "/w", env: { HOME: "/home/u" } })[1]).toEqual({ dir: "/home/u/.config/awl/extensions", source: "user" });
    expect(defaultExtensionRoots({ cwd: "/w", env: { HOME: "/home/u", XDG_CONFIG_HOME: "relative" } })[1]!.dir).toBe(
      "/home/u/.config/awl/extensions",
    );
  });

  it("scans a folder named twice only once, and is silent about absent default folders", () => {
    file("p/a.lua");
    const result = discoverExtensions([root("p"), root("p", "user"), root("nowhere", "user")]);
    expect(result.extensions.map((e) => e.name)).toEqual(["a"]);
    expect(result.shadowed).toEqual([]);
    expect(result.problems).toEqual([]);
  });

  it("reports a missing --extensions-dir folder", () => {
    const result = discoverExtensions([root("missing", "flag")]);
    expect(result.problems.map((p) => p.message)).toEqual([`cannot open extension folder ${join(base, "missing")}: it does not exist (skipped)`]);
  });
});

describe("bad input", () => {
  it("reports a symlink loop and keeps scanning", () => {
    file("p/good.lua");
    file("p/sub/fine.lua");
    symlinkSync("..", join(base, "p/sub/loop"));
    symlinkSync("self.lua", join(base, "p/self.lua"));
    const result = discoverExtensions([root("p")]);
    expect(result.extensions.map((e) => e.name)).toEqual(["good", "sub.fine"]);
    const messages = result.problems.map((p) => p.message);
    expect(messages).toContain(`cannot open ${join(base, "p/self.lua")}: symlink loop (skipped)`);
    expect(messages.some((m) => m.startsWith(`symlink loop: ${join(base, "p/sub/loop")} leads back to`))).toBe(true);
  });

  it("follows a symlinked extension folder that is not a loop", () => {
    file("elsewhere/tool/init.lua");
    mkdirSync(join(base, "p"));
    symlinkSync(join(base, "elsewhere/tool"), join(base, "p/tool"));
    expect(names([root("p")])).toEqual(["tool"]);
  });

  it("reports a dangling symlink to a .lua file", () => {
    mkdirSync(join(base, "p"));
    symlinkSync(join(base, "gone.lua"), join(base, "p/ghost.lua"));
    file("p/ok.lua");
    const result = discoverExtensions([root("p")]);
    expect(result.extensions.map((e) => e.name)).toEqual(["ok"]);
    expect(result.problems[0]!.message).toBe(`cannot open ${join(base, "p/ghost.lua")}: it is a symlink to a missing file (skipped)`);
  });

  it("refuses a 50 MB extension file with a clear message and keeps the others", () => {
    const big = file("p/huge.lua");
    truncateSync(big, 50 * 1024 * 1024); // sparse: no 50 MB written
    file("p/small.lua");
    const result = discoverExtensions([root("p")]);
    expect(result.extensions.map((e) => e.name)).toEqual(["small"]);
    expect(result.problems[0]!.message).toBe(
      `extension "huge": ${big} is 50.0 MB, over the 4.0 MB limit for an extension file (skipped); an extension this large is almost certainly not Lua source`,
    );
  });

  it("refuses an entry point that is not a regular file (a FIFO would hang a reader)", () => {
    mkdirSync(join(base, "p"));
    execFileSync("mkfifo", [join(base, "p/pipe.lua")]);
    const result = discoverExtensions([root("p")]);
    expect(result.extensions).toEqual([]);
    expect(result.problems[0]!.message).toBe(`extension "pipe": ${join(base, "p/pipe.lua")} is not a regular file (skipped)`);
  });

  it("reports a root that is a file", () => {
    file("notadir");
    const result = discoverExtensions([root("notadir", "flag")]);
    expect(result.problems[0]!.message).toContain("is not a folder");
  });
});

// The registration cache's keys at start-up (issue 30): discovery has just stat'ed each entry point, and the keys take
// that stat instead of a second one; what a key says (tool-cache.ts's stat-keyed rule) is the same either way.
describe("the registration cache's keys", () => {
  const snapshot = { tools: [{ extension: "a", name: "say", description: "", parameters: { type: "object" } }], errors: [], unavailable: {} };

  it("keys the extensions with discovery's stat of each entry point, stat'ing only their shared modules again", () => {
    const entries = [file("ext/a.lua"), file("ext/b.lua"), file("ext/c/init.lua")];
    const modules = [file("ext/_shared.lua"), file("ext/c/part.lua")];
    const discovery = discoverExtensions([{ dir: join(base, "ext"), source: "project" }]);
    expect(discovery.extensions.map((e) => e.name)).toEqual(["a", "b", "c"]);
    expect([...discovery.stats.keys()]).toEqual(entries);
    const cachePath = join(base, "cache.json");
    writeToolCache(cachePath, extensionKeys(discovery.extensions)!, snapshot);
    const cache = readToolCache(cachePath, discovery.extensions)!;

    vi.mocked(statSync).mockClear();
    const { keys, cached } = cachedSnapshot(cachePath, cache, discovery.extensions, discovery.stats);
    expect(cached?.tools).toEqual(snapshot.tools);
    const statted = vi.mocked(statSync).mock.calls.map(([path]) => String(path));
    expect(statted.filter((path) => entries.includes(path))).toEqual([]);
    expect(statted.sort()).toEqual(modules.sort());
    // The same keys as with a stat of each file taken now (the files were just written: hashed again, not settled).
    const said = ({ name, file, stamp, hash }: { name: string; file: string; stamp: string; hash: string }) => ({ name, file, stamp, hash });
    expect(keys?.map(said)).toEqual(cache.extensions.map(said));
  });

  it("a file rewritten after discovery: the keys say the stat discovery saw, and the next start finds the change", () => {
    const entry = file("ext/a.lua", "-- one\n");
    const discovery = discoverExtensions([{ dir: join(base, "ext"), source: "project" }]);
    const cachePath = join(base, "cache.json");
    writeToolCache(cachePath, extensionKeys(discovery.extensions, [], discovery.stats)!, snapshot);
    writeFileSync(entry, "-- a longer two\n");
    const again = discoverExtensions([{ dir: join(base, "ext"), source: "project" }]);
    expect(again.stats.get(entry)?.size).toBe(statSync(entry).size);
    const { cached } = cachedSnapshot(cachePath, readToolCache(cachePath, again.extensions)!, again.extensions, again.stats);
    expect(cached).toBeUndefined();
  });
});
