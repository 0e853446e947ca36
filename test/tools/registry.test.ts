import { describe, expect, it } from "vitest";
import { checkObjectSchema, ToolRegistry, type ToolRegistration } from "../../src/tools/registry.js";

const OBJECT = '{"type":"object","properties":{}}';

function reg(extension: string, name: string, extra: Partial<ToolRegistration> = {}): ToolRegistration {
  return { extension, name, description: `${name} tool`, schema: OBJECT, parallel: true, file: `/x/${extension}.lua`, line: 3, ...extra };
}

describe("ToolRegistry", () => {
  it("offers tools sorted by name with their extension, file, line and the default timeout", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 120_000 });
    registry.setExtension("zz", [reg("zz", "b_tool", { timeout_ms: 5 })]);
    registry.setExtension("aa", [reg("aa", "c-tool"), reg("aa", "A", { parallel: false, has_render: true })]);
    expect(registry.definitions().map((t) => [t.name, t.extension, t.timeout_ms, t.parallel])).toEqual([
      ["A", "aa", 120_000, false],
      ["b_tool", "zz", 5, true],
      ["c-tool", "aa", 120_000, true],
    ]);
    expect(registry.get("A")).toMatchObject({ file: "/x/aa.lua", line: 3, has_render: true, has_available: false, description: "A tool" });
    expect(registry.definitions()).toBe(registry.definitions()); // stable until a change
  });

  it("carries each tool's kinds, exec when it declared none", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("k", [reg("k", "plain"), reg("k", "reader", { kinds: ["read"] }), reg("k", "empty", { kinds: [] })]);
    expect(registry.definitions().map((t) => [t.name, t.kinds])).toEqual([["empty", ["exec"]], ["plain", ["exec"]], ["reader", ["read"]]]);
  });

  it("keeps a bundled tool's name for it: another extension's tool of that name is refused, with the way out", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("aa_mine", [reg("aa_mine", "ls")], { rank: 3 });
    registry.setExtension("std.ls", [reg("std.ls", "ls", { file: "/awl/extensions/std/ls.lua" })], { bundled: true });
    expect(registry.get("ls")).toMatchObject({ extension: "std.ls" });
    expect(registry.problems()).toEqual([
      expect.objectContaining({
        kind: "reserved_tool",
        extension: "aa_mine",
        message:
          'tool "ls" of extension "aa_mine" (/x/aa_mine.lua:3) is refused: "ls" belongs to the bundled extension "std.ls"; ' +
          "rename your tool, or switch the bundled one off with awl extensions disable std.ls",
      }),
    ]);
    // Disabled (gone from the registry), the bundled tool leaves the name to the user's.
    registry.removeExtension("std.ls");
    expect(registry.get("ls")).toMatchObject({ extension: "aa_mine" });
    expect(registry.problems()).toEqual([]);
  });

  it("gives a tool name to the extension of higher precedence (project over user), not the first by name", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("aa_user", [reg("aa_user", "deploy")], { rank: 3 });
    registry.setExtension("zz_project", [reg("zz_project", "deploy")], { rank: 2 });
    expect(registry.get("deploy")).toMatchObject({ extension: "zz_project" });
    expect(registry.problemsOf("aa_user")[0]!.message).toContain('"zz_project" keeps it');
  });

  it("refuses bad names and non-object schemas, naming the extension, file and line", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("bad", [
      reg("bad", "has space"),
      reg("bad", "x".repeat(65)),
      reg("bad", ""),
      reg("bad", "arr", { schema: '{"type":"array"}', line: 9 }),
      reg("bad", "ok"),
    ]);
    expect(registry.definitions().map((t) => t.name)).toEqual(["ok"]);
    const problems = registry.problems();
    expect(problems.map((p) => p.kind)).toEqual(["invalid_name", "invalid_name", "invalid_name", "invalid_schema"]);
    expect(problems[0]!.message).toBe(
      'extension "bad" (/x/bad.lua:3): tool name "has space" is not allowed: use 1 to 64 letters, digits, "_" or "-"',
    );
    expect(problems[3]!.message).toBe(
      'extension "bad" (/x/bad.lua:9): the schema of tool "arr" must have type = "object" (tool input is always an object), not "array"',
    );
  });

  it("keeps the first of two extensions registering one name and names both", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("second", [reg("second", "dup", { line: 7 })]);
    registry.setExtension("first", [reg("first", "dup", { line: 2 })]);
    expect(registry.get("dup")!.extension).toBe("first");
    expect(registry.problems()).toEqual([
      {
        kind: "duplicate_tool",
        extension: "second",
        tool: "dup",
        file: "/x/second.lua",
        line: 7,
        message:
          'tool "dup" is registered by two extensions: "first" (/x/first.lua:2) and "second" (/x/second.lua:7); "first" keeps it, rename one of them',
      },
    ]);
    expect(registry.problemsOf("first")).toEqual([]);
    expect(registry.problemsOf("second")).toHaveLength(1);
    // The winner goes away: the other extension's tool takes over, and the conflict is gone.
    registry.removeExtension("first");
    expect(registry.get("dup")!.extension).toBe("second");
    expect(registry.problems()).toEqual([]);
  });

  it("reports one extension registering a name twice", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("e", [reg("e", "t", { line: 1 }), reg("e", "t", { line: 5 })]);
    expect(registry.definitions()).toHaveLength(1);
    expect(registry.get("t")!.line).toBe(1);
    expect(registry.problems()[0]!.message).toContain('tool "t" is registered twice by extension "e" (/x/e.lua:1 and /x/e.lua:5)');
  });

  it("replaces an extension's tools as a unit", () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 1 });
    registry.setExtension("e", [reg("e", "old1"), reg("e", "old2")]);
    registry.setExtension("other", [reg("other", "keep")]);
    registry.setExtension("e", [reg("e", "new")]);
    expect(registry.definitions().map((t) => t.name)).toEqual(["keep", "new"]);
    expect(registry.toolsOf("e").map((t) => t.name)).toEqual(["new"]);
    registry.removeExtension("e");
    expect(registry.definitions().map((t) => t.name)).toEqual(["keep"]);
  });
});

describe("checkObjectSchema", () => {
  it("accepts object schemas and explains the rest", () => {
    expect(checkObjectSchema('{"type":"object"}')).toBeUndefined();
    expect(checkObjectSchema("[]")).toContain("must be a table");
    expect(checkObjectSchema("null")).toContain("must be a table");
    expect(checkObjectSchema("{}")).toBe('must have type = "object" (tool input is always an object), not no type');
    expect(checkObjectSchema("{nope")).toContain("is not valid JSON");
    expect(checkObjectSchema('{"type":"object","properties":[]}')).toBe("has properties that are not a table of named schemas");
  });
});
