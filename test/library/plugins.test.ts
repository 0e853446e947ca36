// The library installs, checks and removes a plugin without the CLI (docs/plugins.md).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkInstalled, discardInstall, finishInstall, prepareInstall, readLock, readPluginPackage, removeInstalled, summaryLines } from "../../src/index.js";
import { tempDir } from "../support/temp-dir.js";

describe("plugins from the library", () => {
  it("reads a package, reviews, installs, checks its digest and removes it", async () => {
    const base = tempDir("awl-lib-plugin-");
    const env = { HOME: base, XDG_DATA_HOME: join(base, "data"), XDG_CACHE_HOME: join(base, "cache"), PATH: process.env.PATH };
    const src = join(base, "kit");
    mkdirSync(join(src, "dev.awl", "extensions"), { recursive: true });
    writeFileSync(join(src, "plugin.json"), JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "kit", version: "1.0.0", colour: "red" }));
    writeFileSync(join(src, "dev.awl", "extensions", "kit.lua"), 'awl.register_tool("kit_echo", { type = "object" }, function() return "x" end)\n');
    const pkg = readPluginPackage(src);
    expect(pkg.layout).toBe("agent-plugins");
    expect(pkg.notices[0]).toContain('unknown field "colour"');
    const declined = await prepareInstall(src, base, env);
    discardInstall(declined);
    expect(readLock(env).plugins).toEqual({});
    const prepared = await prepareInstall(src, base, env);
    expect(summaryLines(prepared.summary).join("\n")).toContain("kit_echo [exec] (extension kit.kit)");
    const entry = finishInstall(prepared, env);
    expect(entry.digest).toMatch(/^sha256:/);
    expect(checkInstalled(env).plugins.map((p) => p.entry.name)).toEqual(["kit"]);
    expect(removeInstalled(env, "kit")).toBe(true);
    expect(checkInstalled(env).plugins).toEqual([]);
  });
});
