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

it("the prompt is drawn before the Markdown renderer and the provider's stream parser load; a reply then has both", async () => {
  const reporter = loadReporter({ at: "prompt" });
  await tty.start({ extraEnv: Object.entries(reporter.env).map(([name, value]) => `${name}=${value}`), args: ["--no-session"] });
  const atPrompt = reporter.read().files.map(chunkName);
  expect(atPrompt).toContain("interactive");
  for (const late of ["render-markdown", "marked.esm", "sse", "node_modules/eventsource-parser/dist/index.cjs"]) expect(atPrompt).not.toContain(late);
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
