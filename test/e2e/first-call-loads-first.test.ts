// The first tool call of a run has its extension loaded before the others (issue 30: the registration cache names
// it), through the built awl: the extension that serves the name is the one that would have served it without
// that (a project extension replacing a bundled one wins), and every other tool works afterwards, in the same
// batch too. Whether the call ran before the others loaded is proven in test/extensions/lua/load-first.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ReplayServer } from "../support/replay-server.js";
import { openaiText, openaiToolCalls, providerEnv, resultsIn, withServerAndSandbox, type Sandbox } from "./support.js";

let server: ReplayServer;
let box: Sandbox;
withServerAndSandbox((made) => ({ server, box } = made));

const PROJECT_LS = `
awl.register_tool("ls", { type = "object", properties = { path = { type = "string" } } }, function()
  return "the project's own ls"
end)
awl.register_tool("shout", { type = "object", properties = { text = { type = "string" } }, required = { "text" } }, function(input)
  return input.text:upper()
end)
`;

it("the first call's extension loads first: a project extension replacing a bundled one still serves it, and the other tools work after it and beside it", async () => {
  box.extension("std/ls.lua", PROJECT_LS);
  writeFileSync(join(box.cwd, "notes.txt"), "a note\n");
  const awl = (prompt: string) => box.awl(["-p", "--no-session", "--trust-project", "--allow", "*", prompt], { env: providerEnv("openai", server.url) });
  // A first run writes the registration cache: from then on a call's extension is known before any Lua runs.
  server.enqueue({ body: openaiText("Hello.") });
  const cold = await awl("hi");
  expect(cold.code, cold.stderr).toBe(0);
  expect(cold.stderr).toContain('the bundled extension "std.ls" is replaced by');

  server.enqueue(
    { body: openaiToolCalls([{ id: "c1", name: "ls", input: {} }]) },
    { body: openaiToolCalls([{ id: "c2", name: "read", input: { path: "notes.txt" } }]) },
    { body: openaiText("Done.") },
  );
  const one = await awl("list, then read");
  expect(one.code, one.stderr).toBe(0);
  const afterFirst = server.requests.length;
  expect(resultsIn(server.requests[afterFirst - 2]!).c1).toBe("the project's own ls");
  expect(resultsIn(server.requests[afterFirst - 1]!).c2).toContain("a note");

  // Three calls in one reply, the first of a run: the one loaded first, a second of its extension, and a tool of
  // another extension (which waits for the whole load).
  server.enqueue(
    {
      body: openaiToolCalls([
        { id: "d1", name: "shout", input: { text: "first" } },
        { id: "d2", name: "read", input: { path: "notes.txt" } },
        { id: "d3", name: "ls", input: {} },
      ]),
    },
    { body: openaiText("Done.") },
  );
  const batch = await awl("shout, read and list");
  expect(batch.code, batch.stderr).toBe(0);
  const results = resultsIn(server.requests.at(-1)!);
  expect(results.d1).toBe("FIRST");
  expect(results.d2).toContain("a note");
  expect(results.d3).toBe("the project's own ls");
  // The registration cache still lists every extension's tools (the whole load wrote it, not the first part).
  const cacheDir = join(box.home, ".cache", "awl");
  const cache = readFileSync(join(cacheDir, "extension-tools.json"), "utf8");
  for (const name of ['"shout"', '"read"', '"bash"', '"ls"']) expect(cache).toContain(name);
});
