// docs/std-tools.md keeps up with the tools: a section per bundled tool, naming every input its schema has.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { REPO, sandbox, type Sandbox } from "../e2e/support.js";
import { STD_TOOLS } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.remove());

it("has a section for each std tool that names each of its inputs", async () => {
  const doc = readFileSync(join(REPO, "docs/std-tools.md"), "utf8");
  const listing = JSON.parse((await box.awl(["tools", "--json"])).stdout) as { tools: { name: string; schema: unknown }[] };
  expect(listing.tools.map((t) => t.name)).toEqual(STD_TOOLS);
  for (const tool of listing.tools) {
    const start = doc.indexOf(`\n## ${tool.name}\n`);
    expect(start, `docs/std-tools.md has no "## ${tool.name}" section`).toBeGreaterThan(0);
    const section = doc.slice(start + 1, doc.indexOf("\n## ", start + 1));
    const schema = (typeof tool.schema === "string" ? JSON.parse(tool.schema) : tool.schema) as { properties: Record<string, unknown> };
    for (const input of Object.keys(schema.properties)) expect(section, `${tool.name}: input "${input}" is not in its section`).toContain(`\`${input}\``);
  }
});
