// Plugins through the built awl (docs/plugins.md): install from a folder, a packed tarball and a local git
// repository; the review and its answer; the digest pin; update, remove, enable/disable; a Claude Code plugin;
// `awl plugins check`; bad sources. Everything offline: local folders, `npm pack` and `git init` in the test.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { AWL, openaiText, openaiToolCalls, providerEnv, toolNamesOffered, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const ODD_SERVER = join(import.meta.dirname, "../fixtures/mcp/odd-server.mjs");
const SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
const MCP_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";
const pluginsHome = (): string => join(box.home, ".local/share/awl/plugins");
const lock = (): { plugins: Record<string, { digest: string; resolved?: string; source: string; enabled: boolean }> } =>
  JSON.parse(readFileSync(join(pluginsHome(), "lock.json"), "utf8"));

function write(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

const toolLua = (tool: string, answer: string): string => `awl.register_tool {
  name = "${tool}", description = "Answers.", kinds = { "read" },
  parameters = { type = "object", properties = {} },
  run = function() return "${answer}" end,
}
`;

/** A full Agent Plugins folder: a Lua tool, a skill, a command hook and an MCP server. */
function fullPlugin(root: string, version = "1.0.0", extra: Record<string, string> = {}): string {
  return write(root, {
    "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "kit", version, description: "A kit." }, null, 2),
    "dev.awl/extensions/kit.lua": toolLua("kit_answer", "ANSWER-FROM-KIT"),
    "skills/kit-notes/SKILL.md": "---\nname: kit-notes\ndescription: Notes of the kit; use when asked about kits.\n---\nKIT-SKILL-BODY\n",
    "dev.awl/hooks.json": JSON.stringify({ hooks: { PreToolUse: [{ matcher: "kit_answer", hooks: [{ type: "command", command: "echo hooked >> ${PLUGIN_DATA}/hook.log" }] }] } }),
    "mcp.json": JSON.stringify({ $schema: MCP_SCHEMA, mcpServers: { odd: { type: "stdio", command: "node", args: [ODD_SERVER, "normal"], env: { ODD_STARTED_FILE: "${PLUGIN_DATA}/mcp-started" } } } }),
    ...extra,
  });
}

const awl = (args: string[], input = "") => box.awl(args, { input, env: providerEnv("openai", server.url) });

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }, encoding: "utf8" }).trim();
}

/** Makes `repo` a git repository whose first commit (all its files) is tagged `tag`. */
function gitInitTagged(repo: string, tag: string): void {
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", tag);
  git(repo, "tag", tag);
}

describe("install from a folder", () => {
  it("shows what the plugin brings and, answered no, installs nothing", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    const r = await awl(["install", src], "n\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("kit 1.0.0 (Agent Plugins 1.0)");
    expect(r.stdout).toMatch(/tools \(as their source registers them\):\n\s+kit_answer \[read\] \(extension kit\.kit\)/);
    expect(r.stdout).toMatch(/hooks \(commands run as you\):\n\s+PreToolUse \(kit_answer\): echo hooked/);
    expect(r.stdout).toMatch(/MCP servers \(programs run as you\):\n\s+odd: node .*odd-server\.mjs normal/);
    expect(r.stdout).toMatch(/skills:\n\s+kit-notes/);
    expect(r.stdout).toContain("Nothing was installed");
    expect(existsSync(join(pluginsHome(), "packages", "kit"))).toBe(false);
    expect(existsSync(join(pluginsHome(), "lock.json"))).toBe(false);
  });

  it("installed, its Lua tool, skill, hook and MCP server all work in a -p run", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    const installed = await awl(["install", "--yes", src]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain("Installed kit (1.0.0)");
    expect(lock().plugins.kit!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    server.enqueue({ body: openaiToolCalls([{ id: "c1", name: "kit_answer", input: {} }]) }, { body: openaiText("done") });
    const r = await awl(["--allow", "*", "-p", "go"]);
    expect(r.code, r.stderr).toBe(0);
    const offered = toolNamesOffered("openai", server.requests[0]!);
    expect(offered).toContain("kit_answer");
    expect(offered).toContain("odd_grow");
    expect(JSON.stringify(server.requests[0]!.json())).toContain("kit-notes");
    expect(JSON.stringify(server.requests[1]!.json())).toContain("ANSWER-FROM-KIT");
    const data = join(pluginsHome(), "data", "kit");
    expect(readFileSync(join(data, "hook.log"), "utf8")).toBe("hooked\n");
    expect(readFileSync(join(data, "mcp-started"), "utf8")).toContain("started");
    const hooks = await awl(["hooks"]);
    expect(hooks.stdout).toContain("plugins/packages/kit/dev.awl/hooks.json");
  }, 60_000);

  it("an installed file edited by hand makes the next load refuse the plugin, with the reason", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    writeFileSync(join(pluginsHome(), "packages/kit/dev.awl/extensions/kit.lua"), toolLua("kit_answer", "TAMPERED"));
    server.enqueue({ body: openaiText("done") });
    const r = await awl(["-p", "go"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('plugin "kit": its files changed since it was installed');
    expect(toolNamesOffered("openai", server.requests[0]!)).not.toContain("kit_answer");
    const listed = await awl(["plugins"]);
    expect(listed.stdout).toMatch(/kit 1\.0\.0 {2}not loaded/);
    // The same size and modification time put back by hand: the change time still tells.
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect((await awl(["plugins"])).stdout).toMatch(/kit 1\.0\.0 {2}on/);
    const file = join(pluginsHome(), "packages/kit/dev.awl/extensions/kit.lua");
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, "utf8").replace("ANSWER-FROM-KIT", "ANSWER-FROM-BAD"));
    utimesSync(file, before.atime, before.mtime);
    expect(statSync(file).size).toBe(before.size);
    expect((await awl(["plugins"])).stdout).toContain("not loaded");
    // An added file counts as a change too.
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    writeFileSync(join(pluginsHome(), "packages/kit/dev.awl/extensions/extra.lua"), toolLua("extra", "X"));
    expect((await awl(["plugins"])).stdout).toContain("not loaded");
  }, 60_000);

  it("disable and enable switch the plugin's parts off and on; remove leaves nothing behind", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect((await awl(["plugins", "disable", "kit"])).code).toBe(0);
    expect((await awl(["plugins"])).stdout).toMatch(/kit 1\.0\.0 {2}off/);
    expect((await awl(["tools"])).stdout).not.toContain("kit_answer");
    expect((await awl(["plugins", "enable", "kit"])).code).toBe(0);
    expect((await awl(["tools"])).stdout).toContain("kit_answer");
    const removed = await awl(["remove", "kit"]);
    expect(removed.code).toBe(0);
    expect(readdirSync(join(pluginsHome(), "packages"))).toEqual([]);
    expect(readdirSync(join(pluginsHome(), "data"))).toEqual([]);
    expect(lock().plugins).toEqual({});
    expect((await awl(["tools"])).stdout).not.toContain("kit_answer");
    expect((await awl(["remove", "kit"])).code).toBe(2);
  }, 60_000);

  it("a symlink pointing out of the plugin folder is refused and nothing is installed", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    symlinkSync("/etc/passwd", join(src, "skills/kit-notes/passwd"));
    const r = await awl(["install", "--yes", src]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("skills/kit-notes/passwd: a symlink pointing out of the plugin (/etc/passwd); refused");
    expect(existsSync(join(pluginsHome(), "packages", "kit"))).toBe(false);
  });
});

describe("install from a tarball", () => {
  it("installs the archive npm pack made of a plain folder of Lua extensions", async () => {
    const src = write(join(box.root, "lua-pack"), {
      "package.json": JSON.stringify({ name: "@me/lua-pack", version: "2.0.0", files: ["*.lua"] }),
      "hello.lua": toolLua("pack_hello", "HELLO-FROM-PACK"),
    });
    const tgz = execFileSync("npm", ["pack", "--json", "--pack-destination", box.root], { cwd: src, encoding: "utf8" });
    const file = join(box.root, (JSON.parse(tgz) as Array<{ filename: string }>)[0]!.filename.replace(/^@me\//, "me-"));
    const r = await awl(["install", "--yes", file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("lua-pack 2.0.0 (folder of Lua extensions)");
    expect((await awl(["tool", "call", "pack_hello", "{}"])).stdout).toContain("HELLO-FROM-PACK");
  }, 60_000);

  it("npm:SPEC goes through npm pack (here a folder spec: no registry) and records the version", async () => {
    const src = write(join(box.root, "npm-kit"), {
      "package.json": JSON.stringify({ name: "npm-kit", version: "1.4.0", scripts: { prepack: "touch PREPACK-RAN" } }),
      "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "npm-kit", version: "1.4.0" }),
      "dev.awl/extensions/k.lua": toolLua("npm_kit", "FROM-NPM"),
    });
    const r = await awl(["install", "--yes", `npm:${src}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(lock().plugins["npm-kit"]!.resolved).toBe("1.4.0");
    expect(existsSync(join(src, "PREPACK-RAN"))).toBe(false);
    expect((await awl(["tool", "call", "npm_kit", "{}"])).stdout).toContain("FROM-NPM");
  }, 60_000);

  it("npm:NAME from a registry (a local one serving a packument and its tarball): checked, recorded, no script run", async () => {
    const marker = join(box.root, "SCRIPT-RAN");
    const scripts = Object.fromEntries(["preinstall", "install", "postinstall", "prepare", "prepack", "postpack"].map((s) => [s, `echo ${s} >> ${marker}`]));
    const tarballs = new Map<string, Buffer>();
    const versions: Record<string, unknown> = {};
    const { createServer } = await import("node:http");
    const { createHash } = await import("node:crypto");
    const requests: string[] = [];
    let latest = "1.0.0";
    let corrupt = false;
    const registry = createServer((req, res) => {
      requests.push(req.url ?? "");
      const tgz = /^\/reg-kit\/-\/(reg-kit-[\d.]+\.tgz)$/.exec(req.url ?? "")?.[1];
      if (tgz && tarballs.has(tgz)) return res.end(corrupt ? Buffer.concat([tarballs.get(tgz)!, Buffer.from("x")]) : tarballs.get(tgz));
      if (req.url === "/reg-kit") return res.setHeader("content-type", "application/json").end(JSON.stringify({ name: "reg-kit", "dist-tags": { latest }, versions }));
      res.statusCode = 404;
      res.end('{"error":"not found"}');
    });
    await new Promise<void>((done) => registry.listen(0, "127.0.0.1", done));
    const url = `http://127.0.0.1:${(registry.address() as { port: number }).port}`;
    try {
      for (const version of ["1.0.0", "2.0.0"]) {
        const manifest = { name: "reg-kit", version, scripts };
        const src = write(join(box.root, `reg-kit-${version}`), {
          "package.json": JSON.stringify(manifest),
          "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "reg-kit", version }),
          "dev.awl/extensions/k.lua": toolLua("reg_kit", `FROM-REGISTRY-${version}`),
        });
        execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", box.root], { cwd: src, stdio: "ignore" });
        const file = `reg-kit-${version}.tgz`;
        const bytes = readFileSync(join(box.root, file));
        tarballs.set(file, bytes);
        const dist = { tarball: `${url}/reg-kit/-/${file}`, shasum: createHash("sha1").update(bytes).digest("hex"), integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}` };
        versions[version] = { ...manifest, dist };
      }
      const npmEnv = { npm_config_registry: `${url}/`, npm_config_cache: join(box.root, "npm-cache"), npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false", npm_config_fetch_retries: "0" };
      const npmAwl = (args: string[]) => box.awl(args, { env: { ...providerEnv("openai", server.url), ...npmEnv } });
      const r = await npmAwl(["install", "--yes", "npm:reg-kit"]);
      expect(r.code, r.stderr).toBe(0);
      expect(requests).toContain("/reg-kit");
      expect(requests).toContain("/reg-kit/-/reg-kit-1.0.0.tgz");
      expect(lock().plugins["reg-kit"]).toMatchObject({ source: "npm:reg-kit", resolved: "1.0.0" });
      expect((await awl(["tool", "call", "reg_kit", "{}"])).stdout).toContain("FROM-REGISTRY-1.0.0");
      latest = "2.0.0";
      const updated = await npmAwl(["update", "--yes", "reg-kit"]);
      expect(updated.code, updated.stderr).toBe(0);
      expect(updated.stdout).toContain("Update reg-kit: 1.0.0 → 2.0.0");
      expect(lock().plugins["reg-kit"]!.resolved).toBe("2.0.0");
      expect((await awl(["tool", "call", "reg_kit", "{}"])).stdout).toContain("FROM-REGISTRY-2.0.0");
      // A tarball that does not match the registry's integrity is refused by npm: nothing changes.
      corrupt = true;
      rmSync(join(box.root, "npm-cache"), { recursive: true, force: true });
      const bad = await npmAwl(["install", "--yes", "npm:reg-kit@1.0.0"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/npm:reg-kit@1\.0\.0: npm pack failed: .*(integrity|EINTEGRITY)/);
      expect(lock().plugins["reg-kit"]!.resolved).toBe("2.0.0");
      // No install, prepare or pack script of the package ran, at install, update or load.
      expect(existsSync(marker)).toBe(false);
    } finally {
      registry.close();
    }
  }, 120_000);

  it("an archive with a .. path or a link out of the package is refused before anything is unpacked", async () => {
    const work = join(box.root, "work", "inner");
    mkdirSync(work, { recursive: true });
    writeFileSync(join(box.root, "work", "evil.txt"), "evil");
    writeFileSync(join(work, "plugin.lua"), toolLua("x", "x"));
    execFileSync("tar", ["-czPf", join(box.root, "dots.tgz"), "plugin.lua", "../evil.txt"], { cwd: work });
    const dots = await awl(["install", "--yes", join(box.root, "dots.tgz")]);
    expect(dots.code).toBe(1);
    expect(dots.stderr).toContain('../evil.txt: a path with ".."');
    symlinkSync("../../../outside", join(work, "link"));
    execFileSync("tar", ["-czf", join(box.root, "link.tgz"), "plugin.lua", "link"], { cwd: work });
    const link = await awl(["install", "--yes", join(box.root, "link.tgz")]);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain("link: a link to ../../../outside, outside the package");
    expect(existsSync(join(box.root, "outside"))).toBe(false);
    expect(existsSync(join(pluginsHome(), "packages"))).toBe(false);
  });
});

describe("install from luarocks", () => {
  /** Packs a rock of `files` (paths inside its source folder) with `build`, into the rocks server folder `server`. */
  function packRock(server: string, name: string, version: string, files: Record<string, string>, build: string, extra = "", dir = `${name}-${version}`): void {
    const work = join(box.root, "rocks-work", `${name}-${version}`);
    write(join(work, `${name}-${version}`), files);
    execFileSync("tar", ["czf", `${name}-${version}.tar.gz`, `${name}-${version}`], { cwd: work });
    const rockspec = `${name}-${version}-1.rockspec`;
    write(work, {
      [rockspec]: `package = "${name}"\nversion = "${version}-1"\nsource = { url = "file://${work}/${name}-${version}.tar.gz", dir = "${dir}" }\ndescription = { summary = "test" }\ndependencies = { "lua >= 5.1"${extra} }\nbuild = ${build}\n`,
    });
    execFileSync("luarocks", ["pack", rockspec], { cwd: work, env: box.env(), stdio: "ignore" });
    mkdirSync(server, { recursive: true });
    execFileSync("cp", [join(work, `${name}-${version}-1.src.rock`), server]);
    execFileSync("luarocks-admin", ["make-manifest", server], { env: box.env(), stdio: "ignore" });
  }

  it("a pure-Lua rock installs into awl's Lua tree: an extension requires it; a rock with a C module is refused", async () => {
    const server = join(box.root, "rocks");
    packRock(server, "greet", "1.0", { "src/greet/init.lua": 'return { hello = function(n) return "hello " .. n .. " from " .. require("greet.util").who .. require("shout").mark end }\n', "src/greet/util.lua": 'return { who = "the rock" }\n' },
      '{ type = "builtin", modules = { greet = "src/greet/init.lua", ["greet.util"] = "src/greet/util.lua" } }', ', "shout >= 1.0, < 2"');
    // Its dependency, pure Lua: two versions on the server, the newest meeting the constraint is taken.
    packRock(server, "shout", "1.2", { "shout.lua": 'return { mark = "!" }\n' }, '{ type = "builtin", modules = { shout = "shout.lua" } }');
    packRock(server, "shout", "2.0", { "shout.lua": 'return { mark = "?" }\n' }, '{ type = "builtin", modules = { shout = "shout.lua" } }');
    // Rocks whose dependency has a C module, or is on no server in a version that meets the constraint.
    packRock(server, "needc", "1.0", { "n.lua": "return 1\n" }, '{ type = "builtin", modules = { needc = "n.lua" } }', ', "cmod"');
    packRock(server, "needold", "1.0", { "n.lua": "return 1\n" }, '{ type = "builtin", modules = { needold = "n.lua" } }', ', "shout < 1.0"');
    packRock(server, "cmod", "1.0", { "cmod.c": "int luaopen_cmod(void *L) { return 0; }\n" }, '{ type = "builtin", modules = { cmod = { sources = { "cmod.c" } } } }');
    packRock(server, "made", "1.0", { "Makefile": "all:\n\ttouch BUILT\n" }, '{ type = "make" }');
    // A source folder seven levels up from the unpacked rock (staging/rock/NAME-VERSION) is the home folder.
    packRock(server, "leak", "1.0", { "e.lua": "return 1\n" }, '{ type = "builtin", modules = { leak = "secret.lua" } }', "", "../../../../../../..");
    write(box.home, { "secret.lua": 'return "SECRET"\n' });
    packRock(server, "escape", "1.0", { "e.lua": "return 1\n" }, '{ type = "builtin", modules = { ["../../../../escaped"] = "e.lua" } }');
    const config = write(join(box.root, "luarocks"), { "config.lua": `rocks_servers = { "${server}" }\n` });
    const rocksEnv = { LUAROCKS_CONFIG: join(config, "config.lua") };
    const rocks = (args: string[], input = "") => box.awl(args, { input, env: rocksEnv });
    const review = await rocks(["install", "luarocks:greet@1.0"], "n\n");
    expect(review.stdout, review.stderr).toContain("greet 1.0-1 (LuaRocks rock)");
    expect(review.stdout).toMatch(/Lua modules \(for require[^)]*\):\n\s+greet\n\s+greet\.util\n\s+shout/);
    expect(review.stdout).toContain("note: it brings the rocks it depends on, inside it: shout 1.2-1");
    expect(existsSync(join(pluginsHome(), "packages", "greet"))).toBe(false);
    const installed = await rocks(["install", "--yes", "luarocks:greet@1.0"]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(lock().plugins.greet).toMatchObject({ source: "luarocks:greet@1.0", resolved: "1.0-1" });
    expect(existsSync(join(pluginsHome(), "packages", "greet", "lua", "greet", "init.lua"))).toBe(true);
    write(join(box.home, ".config/awl/extensions"), {
      "use-rock.lua": 'awl.register_tool { name = "use_rock", description = "d", kinds = { "read" }, parameters = { type = "object", properties = {} }, run = function() return require("greet").hello("you") end }\n',
    });
    expect((await awl(["tool", "call", "use_rock", "{}"])).stdout).toContain("hello you from the rock!");
    // The rock's modules are pinned like any plugin: an edit is refused, and then require no longer finds it.
    writeFileSync(join(pluginsHome(), "packages", "greet", "lua", "greet", "util.lua"), 'return { who = "an edit" }\n');
    const edited = await awl(["tool", "call", "use_rock", "{}"]);
    expect(edited.stdout + edited.stderr).not.toContain("an edit");
    expect(edited.stdout + edited.stderr).toContain("module 'greet' not found");
    // A C module, or a build awl cannot check, is refused with the reason; nothing is installed.
    const c = await rocks(["install", "--yes", "luarocks:cmod"]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('luarocks:cmod: refused: module "cmod" (build.modules) is built from C sources, not Lua: awl\'s Lua is WebAssembly');
    const needc = await rocks(["install", "--yes", "luarocks:needc"]);
    expect(needc.code).toBe(1);
    expect(needc.stderr).toContain('luarocks:needc: refused (the rock "cmod" it depends on (through "needc")): module "cmod" (build.modules) is built from C sources, not Lua');
    const needold = await rocks(["install", "--yes", "luarocks:needold"]);
    expect(needold.code).toBe(1);
    expect(needold.stderr).toContain('luarocks:needold: refused: it depends on the rock "shout < 1.0", and no rocks server has such a version (there: ');
    const make = await rocks(["install", "--yes", "luarocks:made"]);
    expect(make.stderr).toContain('its build type is "make"');
    // A module name that would write outside the package is refused before anything is copied.
    const escape = await rocks(["install", "--yes", "luarocks:escape"]);
    expect(escape.stderr).toContain('luarocks:escape: refused: module name "../../../../escaped" is not a Lua module name');
    const leak = await rocks(["install", "--yes", "luarocks:leak"]);
    expect(leak.stderr).toContain("luarocks:leak: refused: its source folder leak-1.0-1/../../../../../../.. is outside the unpacked rock");
    // (staging/package/lua/ and four levels up is awl's data folder)
    expect(existsSync(join(pluginsHome(), "..", "escaped.lua"))).toBe(false);
    expect(readdirSync(join(pluginsHome(), "packages"))).toEqual(["greet"]);
    const missing = await rocks(["install", "--yes", "luarocks:nosuchrock"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/luarocks:nosuchrock: luarocks download failed: .*nothing was installed/);
  }, 120_000);
});

describe("install from git", () => {
  function repository(): string {
    const repo = join(box.root, "repo");
    fullPlugin(repo, "1.0.0");
    gitInitTagged(repo, "v1");
    fullPlugin(repo, "2.0.0", { "dev.awl/extensions/more.lua": toolLua("kit_more", "MORE") });
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "v2");
    git(repo, "tag", "v2");
    return repo;
  }

  it("installs a tag, records its commit; update to v2 shows the change and keeps the data folder", async () => {
    const repo = repository();
    const v1 = git(repo, "rev-parse", "v1");
    const r = await awl(["install", "--yes", `git:${repo}@v1`]);
    expect(r.code, r.stderr).toBe(0);
    expect(lock().plugins.kit!.resolved).toBe(v1);
    writeFileSync(join(pluginsHome(), "data/kit/state.txt"), "kept");
    const upToDate = await awl(["update", "--yes", "kit"]);
    expect(upToDate.stdout).toContain("kit is up to date");
    const update = await awl(["update", "--yes", "kit@v2"]);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain("version: 1.0.0 → 2.0.0");
    expect(update.stdout).toMatch(/\+ kit_more \[read\] \(extension kit\.more\)/);
    expect(lock().plugins.kit!.resolved).toBe(git(repo, "rev-parse", "v2"));
    expect(readFileSync(join(pluginsHome(), "data/kit/state.txt"), "utf8")).toBe("kept");
    expect((await awl(["tool", "call", "kit_more", "{}"])).stdout).toContain("MORE");
  }, 60_000);

  it("a moved branch: update fetches its new commit; answered no, the old one stays", async () => {
    const repo = repository();
    expect((await awl(["install", "--yes", `git:file://${repo}@main`])).code).toBe(0);
    fullPlugin(repo, "3.0.0");
    git(repo, "commit", "-qam", "v3");
    const no = await awl(["update", "kit"], "no\n");
    expect(no.stdout).toContain("version: 2.0.0 → 3.0.0");
    expect(no.stdout).toContain("Nothing was changed");
    expect(lock().plugins.kit!.resolved).toBe(git(repo, "rev-parse", "HEAD~1"));
    expect((await awl(["update", "kit"], "y\n")).stdout).toContain("Updated kit");
    expect(lock().plugins.kit!.resolved).toBe(git(repo, "rev-parse", "HEAD"));
  }, 60_000);

  it("no source during update (gone, offline): a clear error and the installed version keeps working", async () => {
    const repo = repository();
    expect((await awl(["install", "--yes", `git:${repo}@v2`])).code).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    const r = await awl(["update", "--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"kit" keeps working as installed');
    expect((await awl(["tool", "call", "kit_more", "{}"])).stdout).toContain("MORE");
  }, 60_000);

  it("a repository that does not exist, or a ref it does not have: a clear error and no partial folder", async () => {
    const missing = await awl(["install", "--yes", `git:file://${box.root}/nothing-here`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("git clone");
    expect(missing.stderr).toContain("nothing was installed");
    const repo = repository();
    const ref = await awl(["install", "--yes", `git:${repo}@v9`]);
    expect(ref.code).toBe(1);
    expect(ref.stderr).toContain('the repository has no tag, branch or commit "v9"');
    expect(readdirSync(pluginsHome()).filter((n) => n !== "lock.json")).toEqual([]);
  }, 60_000);

  it("a repository that asks for credentials fails at once and says so", async () => {
    // A local HTTP server answering 401 to everything: git would prompt; awl never lets it.
    const { createServer } = await import("node:http");
    const http = createServer((_req, res) => res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end());
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    const port = (http.address() as { port: number }).port;
    try {
      const r = await awl(["install", "--yes", `git:http://127.0.0.1:${port}/repo.git`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("needs credentials");
    } finally {
      http.close();
    }
  }, 60_000);
});

describe("a Claude Code plugin", () => {
  it("its command, agent and hooks.json work; what cannot work is said", async () => {
    const src = write(join(box.root, "cc"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "cc-kit", version: "0.3.0", outputStyles: "./styles" }, null, 2),
      "commands/greet.md": "---\ndescription: Greets.\n---\nSay GREETING-FROM-COMMAND to $ARGUMENTS\n",
      "agents/helper.md": "---\nname: helper\ndescription: Helps with kits.\n---\nYou are HELPER-PROMPT.\n",
      "hooks/hooks.json": JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo CONTEXT-FROM-HOOK; touch ${CLAUDE_PLUGIN_DATA}/seen" }] }] } }),
    });
    const r = await awl(["install", "--yes", src]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("cc-kit 0.3.0 (Claude Code plugin)");
    expect(r.stdout).toContain('"outputStyles": output styles are a Claude Code UI feature awl does not have');
    expect(r.stdout).not.toContain(".staging-");
    expect((await awl(["agents"])).stdout).toContain("helper");
    server.enqueue({ body: openaiText("done") });
    const run = await awl(["-p", "/greet Bob"]);
    expect(run.code, run.stderr).toBe(0);
    const sent = JSON.stringify(server.requests[0]!.json());
    expect(sent).toContain("Say GREETING-FROM-COMMAND to Bob");
    expect(sent).toContain("CONTEXT-FROM-HOOK");
    expect(sent).toContain("helper");
    expect(existsSync(join(pluginsHome(), "data/cc-kit/seen"))).toBe(true);
  }, 60_000);
});

describe("two plugins", () => {
  it("giving the same tool and skill name: reported, one wins, never mixed", async () => {
    for (const name of ["one", "two"]) {
      write(join(box.root, name), {
        "plugin.json": JSON.stringify({ $schema: SCHEMA, name }),
        "dev.awl/extensions/same.lua": toolLua("same_tool", `FROM-${name}`),
        "skills/same-skill/SKILL.md": `---\nname: same-skill\ndescription: From ${name}.\n---\nbody\n`,
      });
      expect((await awl(["install", "--yes", join(box.root, name)])).code).toBe(0);
    }
    const tools = await awl(["tools"]);
    expect(tools.stdout).toMatch(/same_tool/);
    const skills = await awl(["skills"]);
    expect(skills.stdout).toMatch(/same-skill\s+plugin two .*shadowed/);
    expect(skills.stdout).toContain("the user skill in plugin one has this name and wins");
    expect((await awl(["tool", "call", "same_tool", "{}"])).stdout).toContain("FROM-one");
    expect(tools.stdout).toMatch(/same_tool.*extension "one\.same"/);
    expect(tools.stdout).toContain('tool "same_tool" is registered by two extensions: "one.same"');
  }, 60_000);
});

describe("awl plugins check and new", () => {
  it("a new skeleton passes; a manifest error is reported with its line; JSON that is not JSON too", async () => {
    expect((await awl(["plugins", "new", "my-kit"])).code).toBe(0);
    const ok = await awl(["plugins", "check", "my-kit"]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain("my-kit: no errors (Agent Plugins 1.0)");
    writeFileSync(join(box.cwd, "my-kit/plugin.json"), `{\n  "$schema": "${SCHEMA}",\n  "name": "My Kit",\n  "colour": "red"\n}\n`);
    const bad = await awl(["plugins", "check", "my-kit"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`${join(box.cwd, "my-kit/plugin.json")}:3: "name" "My Kit" is not a plugin name`);
    writeFileSync(join(box.cwd, "my-kit/plugin.json"), `{\n  "$schema": "${SCHEMA}",\n  "name": "my-kit",\n  "colour": "red"\n}\n`);
    const unknown = await awl(["plugins", "check", "my-kit"]);
    expect(unknown.code).toBe(0);
    expect(unknown.stdout).toContain(`note: ${join(box.cwd, "my-kit/plugin.json")}:4: unknown field "colour"`);
    writeFileSync(join(box.cwd, "my-kit/plugin.json"), `{\n  "name": "my-kit",\n  oops\n}\n`);
    const notJson = await awl(["plugins", "check", "my-kit"]);
    expect(notJson.stdout).toContain(`${join(box.cwd, "my-kit/plugin.json")}:3:3: not valid JSON`);
    const install = await awl(["install", "--yes", "my-kit"]);
    expect(install.code).toBe(1);
    // Named where the user has it, not in awl's staging folder.
    expect(install.stderr).toContain(`${join(box.cwd, "my-kit/plugin.json")}:3:3: not valid JSON; nothing was installed`);
    expect(install.stderr).not.toContain(".staging-");
  }, 60_000);

  it("a Lua extension that fails to load and a missing MCP program are errors with file:line", async () => {
    const src = write(join(box.root, "broken"), {
      "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "broken" }),
      "dev.awl/extensions/bad.lua": "awl.register_tool {\n  name = 'bad tool name',\n}\n",
      "mcp.json": JSON.stringify({ $schema: MCP_SCHEMA, mcpServers: { gone: { type: "stdio", command: "./bin/nothing" } } }),
    });
    const r = await awl(["plugins", "check", src]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: .*bad\.lua:\d+/);
    expect(r.stdout).toContain('server "gone": its program');
  }, 60_000);
});

describe("mcp.json against the spec's mcp.schema.json", () => {
  const mcpText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

  it("a server with an unknown field or a field of the wrong type is named with file:line and field, and left out; the others and the plugin stay", async () => {
    const src = write(join(box.root, "mcpkit"), {
      "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "mcpkit" }),
      "mcp.json": mcpText({
        $schema: MCP_SCHEMA,
        mcpServers: {
          good: { type: "stdio", command: "node", args: [ODD_SERVER, "normal"] },
          typo: { type: "stdio", command: "node", argz: ["x"] },
          listless: { type: "stdio", command: "node", args: "x", env: { PLUGIN_DATA: "/tmp" } },
          remote: { type: "streamable-http", headers: { a: "b" } },
          odd: { type: "websocket", url: "wss://x" },
        },
      }),
    });
    const file = join(src, "mcp.json");
    const check = await awl(["plugins", "check", src]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`error: ${file}:15: "mcpServers.typo.argz" is not a field of a stdio server (type, command, args, env, cwd); server "typo" left out`);
    expect(check.stdout).toContain(`error: ${file}:22: "mcpServers.listless.args" must be a list; ${file}:23: "mcpServers.listless.env" sets PLUGIN_DATA; awl sets PLUGIN_ROOT and PLUGIN_DATA itself; server "listless" left out`);
    expect(check.stdout).toContain(`error: ${file}:27: "mcpServers.remote.url" is missing; server "remote" left out`);
    expect(check.stdout).toContain(`error: ${file}:34: "mcpServers.odd.type" is "websocket"; use "stdio", "streamable-http" or "sse"; server "odd" left out`);
    expect(check.stdout).not.toContain('server "good"');
    // Not fatal to the plugin: it installs, the review says which servers are refused and why.
    const install = await awl(["install", "--yes", src]);
    expect(install.code).toBe(0);
    expect(install.stdout).toMatch(/good: node .*odd-server\.mjs normal/);
    expect(install.stdout).toContain('typo: refused:');
    expect((await awl(["mcp", "list"])).stdout).toMatch(/good/);
  }, 60_000);

  it("a top level the schema refuses (another field, a wrong $schema) turns the plugin's MCP servers off, said with file:line", async () => {
    const src = write(join(box.root, "mcptop"), {
      "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "mcptop" }),
      "mcp.json": mcpText({ $schema: "https://agent-plugins.org/schemas/9.0.0/mcp.schema.json", mcpServers: { good: { type: "stdio", command: "node" } }, servers: {} }),
    });
    const file = join(src, "mcp.json");
    const check = await awl(["plugins", "check", src]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`error: ${file}:9: "servers" is not a field of mcp.json ($schema, mcpServers); ${file}:2: "$schema" must be "${MCP_SCHEMA}"; the plugin's MCP servers are off`);
    expect((await awl(["install", "--yes", src])).code).toBe(0);
  }, 60_000);
});

describe("an interrupted install", () => {
  it("killed while waiting for the answer (kill -9): the next run sees no half-installed plugin", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    const child = spawn(process.execPath, [AWL, "install", src], { cwd: box.cwd, env: box.env(), stdio: ["pipe", "pipe", "pipe"] });
    await new Promise<void>((done) => child.stdout.on("data", (d: Buffer) => d.toString().includes("Install it?") && done()));
    expect(readdirSync(pluginsHome()).some((n) => n.startsWith(".staging-"))).toBe(true);
    child.kill("SIGKILL");
    await new Promise((done) => child.on("close", done));
    expect((await awl(["plugins"])).stdout).toContain("No plugin is installed");
    expect((await awl(["tools"])).stdout).not.toContain("kit_answer");
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect(readdirSync(pluginsHome()).filter((n) => n.startsWith("."))).toEqual([]);
  }, 60_000);
});

describe("an install killed at each step (kill -9, at the test-only pause points of src/plugins/test-pause.ts)", () => {
  /** Runs awl with `args`, pausing at `step`; kills it with SIGKILL once it says it is there. */
  async function killAt(step: string, args: string[]): Promise<void> {
    const child = spawn(process.execPath, [AWL, ...args], { cwd: box.cwd, env: box.env({ AWL_TEST_PLUGIN_PAUSE: step }), stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    await new Promise<void>((done, fail) => {
      child.stderr.on("data", (d: Buffer) => (said += d.toString()).includes(`test pause at ${step}`) && done());
      child.on("close", () => fail(new Error(`awl ${args.join(" ")} ended before ${step}: ${said}`)));
    });
    child.kill("SIGKILL");
    await new Promise((done) => child.on("close", done));
  }
  const answer = async (): Promise<string> => (await awl(["tool", "call", "kit_answer", "{}"])).stdout;

  it("an update killed while cloning, between its two renames, or before the lock: never half loaded; rerun completes it", async () => {
    const repo = join(box.root, "repo");
    fullPlugin(repo, "1.0.0");
    gitInitTagged(repo, "v1");
    write(repo, { "plugin.json": JSON.stringify({ $schema: SCHEMA, name: "kit", version: "2.0.0" }), "dev.awl/extensions/kit.lua": toolLua("kit_answer", "ANSWER-V2") });
    git(repo, "commit", "-qam", "v2");
    git(repo, "tag", "v2");
    expect((await awl(["install", "--yes", `git:${repo}@v1`])).code).toBe(0);
    write(join(pluginsHome(), "data", "kit"), { "kept.txt": "mine" });
    expect(await answer()).toContain("ANSWER-FROM-KIT");

    // Killed mid-fetch: the installed version is untouched and keeps working.
    await killAt("cloned", ["update", "--yes", "kit@v2"]);
    expect(await answer()).toContain("ANSWER-FROM-KIT");

    // Killed after the old files moved aside: the plugin is refused (files missing), never half loaded.
    await killAt("old-moved-aside", ["update", "--yes", "kit@v2"]);
    const aside = await awl(["tool", "call", "kit_answer", "{}"]);
    expect(aside.stdout).not.toContain("ANSWER");
    expect((await awl(["plugins"])).stdout).toContain("its files are missing");
    expect((await awl(["update", "--yes", "kit@v2"])).code).toBe(0);
    expect(await answer()).toContain("ANSWER-V2");
    expect(lock().plugins.kit!.resolved).toBe(git(repo, "rev-parse", "v2"));

    // Killed with the new files in place but the lock not written: they are not what the lock names: refused.
    await killAt("new-in-place", ["update", "--yes", "kit@v1"]);
    const unrecorded = await awl(["tool", "call", "kit_answer", "{}"]);
    expect(unrecorded.stdout).not.toContain("ANSWER");
    expect((await awl(["plugins"])).stdout).toContain("its files changed since it was installed");
    expect((await awl(["update", "--yes", "kit@v1"])).code).toBe(0);
    expect(await answer()).toContain("ANSWER-FROM-KIT");
    expect(lock().plugins.kit!.resolved).toBe(git(repo, "rev-parse", "v1"));

    // What the killed runs left behind is gone after the rerun; the data folder is kept throughout.
    expect(readdirSync(pluginsHome()).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readFileSync(join(pluginsHome(), "data", "kit", "kept.txt"), "utf8")).toBe("mine");
  }, 180_000);

  it("an update killed with the lock file written but not the start index: the next run says so, rebuilds it, loads what the lock names", async () => {
    const repo = join(box.root, "repo");
    fullPlugin(repo, "1.0.0");
    gitInitTagged(repo, "v1");
    write(repo, { "dev.awl/extensions/kit.lua": toolLua("kit_answer", "ANSWER-V2") });
    git(repo, "commit", "-qam", "v2");
    git(repo, "tag", "v2");
    expect((await awl(["install", "--yes", `git:${repo}@v1`])).code).toBe(0);
    expect(await answer()).toContain("ANSWER-FROM-KIT");
    await killAt("lock-written", ["update", "--yes", "kit@v2"]);
    const next = await awl(["plugins"]);
    expect(next.stderr).toContain("index.json was older than lock.json (changed by hand, or an install was interrupted); rebuilt from it");
    expect(next.stdout).toMatch(/kit 1\.0\.0 {2}on/);
    expect(await answer()).toContain("ANSWER-V2");
    // Said once: the rebuilt index is current.
    expect((await awl(["plugins"])).stderr).not.toContain("index.json");
  }, 120_000);

  it("an install from an archive killed once unpacked: nothing is installed; rerun installs it", async () => {
    const src = write(join(box.root, "lua-pack"), { "package.json": JSON.stringify({ name: "lua-pack", version: "1.0.0" }), "hello.lua": toolLua("pack_hello", "HELLO") });
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", box.root], { cwd: src, stdio: "ignore" });
    const file = join(box.root, "lua-pack-1.0.0.tgz");
    await killAt("unpacked", ["install", "--yes", file]);
    expect((await awl(["plugins"])).stdout).toContain("No plugin is installed");
    expect((await awl(["tools"])).stdout).not.toContain("pack_hello");
    expect((await awl(["install", "--yes", file])).code).toBe(0);
    expect((await awl(["tool", "call", "pack_hello", "{}"])).stdout).toContain("HELLO");
    expect(readdirSync(pluginsHome()).filter((n) => n.startsWith("."))).toEqual([]);
  }, 90_000);
});

describe("the start index (plugins/index.json: what a run reads instead of each plugin's manifest and files)", () => {
  const indexFile = (): string => join(pluginsHome(), "index.json");
  const index = (): { plugins: Array<{ name: string; checked?: { tree: Array<[string, number, number, number, number]> } }> } =>
    JSON.parse(readFileSync(indexFile(), "utf8")).index;
  const kitFile = (): string => join(pluginsHome(), "packages/kit/dev.awl/extensions/kit.lua");
  const answer = async (): Promise<{ stdout: string; stderr: string }> => awl(["tool", "call", "kit_answer", "{}"]);
  /** An `awl -p` run: what it says on stderr and the tools it offers the model. */
  const run = async (): Promise<{ stderr: string; tools: string[] }> => {
    server.enqueue({ body: openaiText("done") });
    const r = await awl(["-p", "go"]);
    expect(r.code).toBe(0);
    return { stderr: r.stderr, tools: toolNamesOffered("openai", server.requests.at(-1)!) };
  };

  it("a file edited after a run recorded the plugin's stamps is refused as before, with the reason; reinstalled, it loads", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect((await answer()).stdout).toContain("ANSWER-FROM-KIT");
    expect(index().plugins[0]!.checked?.tree.some(([path]) => path === "dev.awl/extensions/kit.lua")).toBe(true);
    // Same size, modification time put back: only the change time tells.
    const before = statSync(kitFile());
    writeFileSync(kitFile(), readFileSync(kitFile(), "utf8").replace("ANSWER-FROM-KIT", "ANSWER-FROM-BAD"));
    utimesSync(kitFile(), before.atime, before.mtime);
    const edited = await run();
    expect(edited.tools).not.toContain("kit_answer");
    expect(edited.stderr).toContain('plugin "kit": its files changed since it was installed');
    // Refused at every run, not only the first after the edit.
    expect((await answer()).stdout).not.toContain("ANSWER-FROM-BAD");
    expect((await awl(["plugins"])).stdout).toMatch(/kit 1\.0\.0 {2}not loaded/);
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect((await answer()).stdout).toContain("ANSWER-FROM-KIT");
  }, 60_000);

  it("an index edited by hand to vouch for an edited file is damaged: rebuilt with a message, the plugin still refused", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    expect((await answer()).stdout).toContain("ANSWER-FROM-KIT");
    writeFileSync(kitFile(), toolLua("kit_answer", "TAMPERED"));
    // The index made to say the edited file's new stamp (and its folder's) is what was checked.
    const text = readFileSync(indexFile(), "utf8");
    const forged = index();
    for (const [i, entry] of forged.plugins[0]!.checked!.tree.entries()) {
      const stat = statSync(join(pluginsHome(), "packages/kit", entry[0]));
      forged.plugins[0]!.checked!.tree[i] = [entry[0], stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino];
    }
    writeFileSync(indexFile(), `${text.slice(0, text.indexOf('"index":') + 8)}${JSON.stringify(forged)}}\n`);
    const r = await run();
    expect(r.tools).not.toContain("kit_answer");
    expect((await answer()).stdout).not.toContain("TAMPERED");
    expect(r.stderr).toContain("index.json: its content does not match its check sum (edited by hand, or cut short); rebuilt from lock.json, every plugin's files checked again");
    expect(r.stderr).toContain('plugin "kit": its files changed since it was installed');
  }, 60_000);

  it("an index that is not one, or a lock file edited by hand: said, rebuilt, and what the lock file says holds", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["install", "--yes", src])).code).toBe(0);
    writeFileSync(indexFile(), "{ not json");
    const garbled = await run();
    expect(garbled.tools).toContain("kit_answer");
    expect(garbled.stderr).toContain("index.json: not an awl plugin index; rebuilt from lock.json");
    expect((await run()).stderr).not.toContain("index.json");
    // The lock file switched off by hand: the index made before it does not keep the plugin on.
    const lockFile = join(pluginsHome(), "lock.json");
    writeFileSync(lockFile, readFileSync(lockFile, "utf8").replace('"enabled": true', '"enabled": false'));
    const off = await awl(["plugins"]);
    expect(off.stderr).toContain("index.json was older than lock.json");
    expect(off.stdout).toMatch(/kit 1\.0\.0 {2}off/);
    expect((await answer()).stdout).not.toContain("ANSWER-FROM-KIT");
  }, 60_000);
});

describe("project plugins", () => {
  it("an untrusted folder's declarations are listed, never fetched; trusted, awl install installs them for the folder only", async () => {
    const repo = join(box.root, "repo");
    fullPlugin(repo, "1.0.0");
    gitInitTagged(repo, "v1");
    write(box.cwd, { ".awl/config.json": JSON.stringify({ plugins: { kit: `git:${repo}@v1` } }) });
    const untrusted = await awl(["install", "--yes"]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toContain("it is not trusted, so none is fetched");
    expect(untrusted.stdout).toContain(`kit: git:${repo}@v1`);
    expect(existsSync(join(pluginsHome(), "packages"))).toBe(false);
    expect((await awl(["plugins"])).stdout).toContain("Declared by this folder's .awl/config.json, not installed");
    expect((await awl(["permissions", "trust"])).code).toBe(0);
    const trusted = await awl(["install", "--yes"]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain("Installed kit (1.0.0");
    expect(lock().plugins.kit).toMatchObject({ projects: [expect.stringContaining(box.cwd.split("/").pop()!)] });
    expect((await awl(["tools"])).stdout).toContain("kit_answer");
    const elsewhere = join(box.root, "elsewhere");
    mkdirSync(elsewhere);
    const outside = await new Promise<string>((done) => {
      const child = spawn(process.execPath, [AWL, "tools"], { cwd: elsewhere, env: box.env() });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.on("close", () => done(out));
    });
    expect(outside).not.toContain("kit_answer");
    expect((await awl(["install"])).stdout).toContain("kit: installed");
  }, 90_000);

  it("a project's plugin loads only while the folder is trusted: untrusted, none of its parts runs", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    expect((await awl(["permissions", "trust"])).code).toBe(0);
    expect((await awl(["install", "--project", "--yes", src])).code).toBe(0);
    expect((await awl(["tools"])).stdout).toContain("kit_answer");
    expect((await awl(["permissions", "untrust"])).code).toBe(0);
    rmSync(join(pluginsHome(), "data", "kit", "mcp-started"), { force: true });
    // Installing it again for the folder (an attempt to get it loaded anyway) does not make it load either.
    const again = await awl(["install", "--project", "--yes", src]);
    expect(again.stdout).toContain("This folder is not trusted: kit loads here once you trust it");
    const tools = await awl(["tools"]);
    expect(tools.stdout).not.toContain("kit_answer");
    expect((await awl(["skills"])).stdout).not.toContain("kit-notes");
    expect((await awl(["hooks"])).stdout).not.toContain("plugins/packages/kit");
    server.enqueue({ body: openaiText("done") });
    const r = await awl(["--allow", "*", "-p", "go"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('plugin "kit": installed for this project, which is not trusted; not loaded');
    const offered = toolNamesOffered("openai", server.requests[0]!);
    expect(offered).not.toContain("kit_answer");
    expect(offered).not.toContain("odd_grow");
    expect(JSON.stringify(server.requests[0]!.json())).not.toContain("kit-notes");
    expect(existsSync(join(pluginsHome(), "data", "kit", "mcp-started"))).toBe(false);
    // Trusted again, it loads as before (its files were not touched).
    expect((await awl(["permissions", "trust"])).code).toBe(0);
    expect((await awl(["tools"])).stdout).toContain("kit_answer");
  }, 90_000);

  it("awl install --project installs for this folder and writes the declaration", async () => {
    const src = fullPlugin(join(box.root, "kit"));
    const r = await awl(["install", "--project", "--yes", src]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(box.cwd, ".awl/config.json"), "utf8")).plugins).toEqual({ kit: src });
    expect(lock().plugins.kit!).toHaveProperty("projects");
    const user = await awl(["install", "--yes", src]);
    expect(user.stdout).toContain("is now installed for every folder");
    expect(lock().plugins.kit!).not.toHaveProperty("projects");
  }, 60_000);
});
