// CompositeToolSet: one ToolSet of several, each tool going to the part that offers it first.
import { describe, expect, it } from "vitest";
import { CompositeToolSet } from "../../src/tools/composite.js";
import type { PrewarmReason, ToolDefinition, ToolSet } from "../../src/tools/types.js";

/** A part offering `names`, noting each prewarm it hears. */
function part(names: string[], heard: string[], label: string): ToolSet {
  const definitions: ToolDefinition[] = names.map((name) => ({ name, description: name, input_schema: { type: "object" }, kinds: ["read"] }));
  return {
    definitions: () => definitions,
    execute: async () => ({ status: "result", content: label, is_error: false }),
    prewarm: (why?: PrewarmReason, tool?: string) => void heard.push(`${label} ${why ?? "-"} ${tool ?? "-"}`),
  };
}

describe("CompositeToolSet.prewarm", () => {
  it("starts only the owner for a call of a named tool (a `task` call starts no Lua load), every part otherwise", async () => {
    const heard: string[] = [];
    const composite = new CompositeToolSet([part(["read", "grep"], heard, "lua"), part(["task"], heard, "agents")]);
    await composite.prewarm("tool_use", "task");
    expect(heard).toEqual(["agents tool_use task"]);
    heard.length = 0;
    await composite.prewarm("tool_use", "read");
    expect(heard).toEqual(["lua tool_use read"]);
    heard.length = 0;
    await composite.prewarm("request");
    await composite.prewarm("tool_use", "nobody-has-it");
    expect(heard).toEqual(["lua request -", "agents request -", "lua tool_use nobody-has-it", "agents tool_use nobody-has-it"]);
  });
});
