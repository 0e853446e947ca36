// docs/std-tools.md's "Turning them off, replacing one", run as a user would: each `sh` block of that section,
// literally, with `awl` on PATH, in a throwaway home and project; then what a user sees.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, it } from "vitest";
import { AWL, REPO, sandbox, type Sandbox } from "../e2e/support.js";
import { SEVERAL_CALLS } from "./support.js";

const run = promisify(execFile);

/** The `sh` blocks of the doc's section, in order. */
function recipes(): string[] {
  const doc = readFileSync(join(REPO, "docs/std-tools.md"), "utf8");
  const start = doc.indexOf("## Turning them off, replacing one");
  const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let box: Sandbox;
let shell: (script: string) => Promise<string>;
beforeEach(() => {
  box = sandbox();
  const bin = join(box.root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "awl"), `#!/bin/sh\nexec "${process.execPath}" "${AWL}" "$@"\n`);
  chmodSync(join(bin, "awl"), 0o755);
  writeFileSync(join(box.cwd, "README.md"), "hello from the readme\n");
  const env = box.env({ PATH: `${bin}:${process.env.PATH}` });
  shell = async (script) => (await run("sh", ["-ec", script], { cwd: box.cwd, env })).stdout;
});
afterEach(() => box.remove());

it("the doc has the three recipes: turn one off, replace one, change one", () => {
  expect(recipes()).toHaveLength(3);
});

it("turns a bundled tool off in the config files, the project's entry winning", SEVERAL_CALLS, async () => {
  await shell(recipes()[0]!); // disable, disable --project, enable (yours): the project's "off" wins
  expect(JSON.parse(readFileSync(join(box.cwd, ".awl/config.json"), "utf8"))).toEqual({ extensions: { "std.bash": { enabled: false } } });
  expect(await shell("awl extensions")).toMatch(/^std\.bash {2}disabled/m);
  const tools = await shell("awl tools");
  expect(tools).not.toMatch(/^bash /m);
  expect(tools).toMatch(/^read /m);
});

it("replaces a bundled tool with your own once it is switched off", SEVERAL_CALLS, async () => {
  const refused = join(box.home, ".config/awl/extensions/myread.lua");
  mkdirSync(join(refused, ".."), { recursive: true });
  writeFileSync(refused, 'awl.register_tool { name = "read", run = function() return "too early" end }\n');
  expect(await shell("awl tools")).toContain('is refused: "read" belongs to the bundled extension "std.read"; rename your tool, or switch the bundled one off with awl extensions disable std.read');

  const out = await shell(recipes()[1]!);
  expect(out).toContain("std.read: disabled");
  expect(out).toMatch(/hello from the readme\n$/); // yours: the text as it is, no line numbers
  expect(await shell("awl tools")).toMatch(/^read {2}·  extension "myread"/m);
});

it("changes a bundled tool through a copy of its files, which shadows it", SEVERAL_CALLS, async () => {
  await shell(recipes()[2]!);
  const copy = join(box.home, ".config/awl/extensions/std/read.lua");
  expect(existsSync(copy)).toBe(true);
  writeFileSync(copy, readFileSync(copy, "utf8").replace('"Read a file.', '"Read a file (my copy).'));
  const tools = await shell("awl tools");
  expect(tools).toContain(`read  ·  extension "std.read"  ·  ${copy}:`);
  expect(tools).toContain("Read a file (my copy).");
  expect(tools).toContain(`the bundled extension "std.read" is replaced by ${copy}`);
  expect(await shell("awl tool call read '{\"path\": \"README.md\"}'")).toBe("1\thello from the readme\n");
  expect(await shell("awl extensions")).toMatch(/^std\.read {2}shadowed {2}\S+extensions\/std\/read\.lua {2}\(bundled\)$/m);
});
