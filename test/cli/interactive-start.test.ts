/**
 * The interactive start (issue 30: the prompt accepting keys within node + 60 ms): what the prompt does not need
 * loads after it is drawn, and keys typed at once find what they reach ready. Through tmux and the built awl.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { chunkName, loadReporter } from "./load-report.js";
import { openaiAnswer } from "./openai-answer.js";
import { tempDir } from "./run-awl.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

it("the prompt is drawn with only its screen loaded: the runtime, the interactive mode's own modules, Markdown and the stream parser come after; a reply then has them", async () => {
  const reporter = loadReporter({ at: "prompt" });
  await tty.start({ extraEnv: Object.entries(reporter.env).map(([name, value]) => `${name}=${value}`), args: ["--no-session"] });
  const atPrompt = reporter.read().files.map(chunkName);
  expect(atPrompt).toContain("screen");
  for (const late of ["turn", "interactive", "render-markdown", "marked.esm", "sse", "node_modules/eventsource-parser/dist/index.cjs"]) expect(atPrompt).not.toContain(late);
  tty.server.enqueue(openaiAnswer("Some **bold** words."));
  await tty.send("hi");
  await tty.terminal.waitFor(/Some bold words\.\n/);
}, 60_000);

/** A home with a user skill, an extension with a command and a SessionStart hook whose output is context for the model. */
const typedAtOnce = {
  extensions: {
    "ship.lua": 'awl.register_command { name = "deploy", description = "ship it", handler = function(args) return "deployed to " .. args end }\n',
  },
  configFile: JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo START-CONTEXT" }] }] } }),
};

function skillHome(): string {
  const home = tempDir("awl-home-");
  mkdirSync(join(home, ".config", "awl", "skills", "chore-alpha"), { recursive: true });
  writeFileSync(join(home, ".config", "awl", "skills", "chore-alpha", "SKILL.md"), "---\nname: chore-alpha\ndescription: Does the alpha chore.\n---\nALPHA-BODY\n");
  return home;
}

it("keys typed while awl starts: an extension's command and a prompt, each sent with Enter, run in order; the prompt has the SessionStart hook's context", async () => {
  tty.server.enqueue(openaiAnswer("Answered at once."));
  await tty.launch({ ...typedAtOnce, home: skillHome() });
  await tty.send("/deploy prod");
  await tty.send("hello there");
  const screen = await tty.terminal.waitFor(/Answered at once\.\n/);
  expect(screen).toMatch(/^> \/deploy prod\ndeployed to prod\n> hello there\n/m);
  const body = JSON.stringify(tty.server.requests[0]!.json());
  expect(body).toContain("hello there");
  expect(body).toContain("START-CONTEXT");
}, 60_000);

it("Tab typed while awl starts completes a skill's and an extension command's name", async () => {
  await tty.launch({ ...typedAtOnce, home: skillHome() });
  await tty.terminal.type("/chore-al");
  await tty.terminal.keys("Tab");
  await tty.terminal.waitFor(/^> \/chore-alpha\s*$/m);
  await tty.terminal.keys("C-c");
  await tty.terminal.type("/depl");
  await tty.terminal.keys("Tab");
  await tty.terminal.waitFor(/^> \/deploy\s*$/m);
}, 60_000);

/**
 * An extension whose load waits for a file the test writes: until then the tools are not open (no registration
 * cache yet, so the runtime waits for the load), and whatever the screen shows was drawn before them.
 */
function gatedExtension(gate: string): string {
  return `local t = os.clock()
while os.clock() - t < 30 do
  local f = io.open(${JSON.stringify(gate)}, "r")
  if f then f:close() break end
end
awl.register_command { name = "gated", description = "registered after the gate", handler = function() return "gate passed" end }
awl.register_tool { name = "gated_tool", description = "A tool registered after the gate.", parameters = { type = "object", properties = {} }, run = function() return "ok" end }
`;
}

it("the prompt takes keys while the tools still open; Enter, Tab and a warning of then are handled once they are open", async () => {
  const home = tempDir("awl-home-");
  const gate = join(home, "gate");
  tty.server.enqueue(openaiAnswer("Answered after the gate."));
  await tty.launch({
    home,
    extensions: { "gated.lua": gatedExtension(gate) },
    // A rule naming no tool there is: said once the tools are known, above the prompt.
    configFile: JSON.stringify({ permissions: { allow: ["no_such_tool"] } }),
    args: ["--no-session"],
  });
  // Drawn and echoing while the extension cannot have registered anything: it waits for the gate (and is not given
  // up yet: a load has 10 s, after which a prompt drawn only once the tools are open would show too).
  const early = await tty.terminal.waitFor(/awl · openai gpt-test[^\n]*\n> *\n[^\n]*↑0 ↓0/);
  expect(early).not.toMatch(/did not finish loading/);
  await tty.terminal.type("hello while loading");
  await tty.terminal.waitFor(/^> hello while loading\s*$/m);
  await tty.terminal.keys("Enter");
  await tty.terminal.type("/gat");
  await tty.terminal.keys("Tab");
  expect(tty.server.requests).toHaveLength(0);
  writeFileSync(gate, "");
  const screen = await tty.terminal.waitFor(/Answered after the gate\.\n[\s\S]*> \/gated\s*$/m);
  // The prompt was sent with the tools it waited for; the warning went above the prompt, not into it.
  const body = JSON.stringify(tty.server.requests[0]!.json());
  expect(body).toContain("hello while loading");
  expect(body).toContain("gated_tool");
  expect(screen).toMatch(/no_such_tool/);
  expect(screen).toMatch(/^> hello while loading\n/m);
  await tty.terminal.keys("Enter");
  await tty.terminal.waitFor(/^gate passed$/m);
}, 60_000);

it("Ctrl-D at the prompt while the tools still open exits once they are open, cleanly", async () => {
  const home = tempDir("awl-home-");
  const gate = join(home, "gate");
  await tty.launch({ home, extensions: { "gated.lua": gatedExtension(gate) }, args: ["--no-session"] });
  await tty.terminal.waitFor(/^>\s*$/m);
  await tty.terminal.keys("C-d");
  writeFileSync(gate, "");
  await tty.terminal.waitFor(/\[awl exited 0\]/);
  expect(tty.server.requests).toHaveLength(0);
}, 60_000);
