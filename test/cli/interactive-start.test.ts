/**
 * The interactive start (issue 30: the prompt accepting keys within node + 60 ms): what the prompt does not need
 * loads after it is drawn, and keys typed at once find what they reach ready. Through tmux and the built awl.
 */
import { expect, it } from "vitest";
import { chunkName, loadReporter } from "./load-report.js";
import { openaiAnswer } from "./openai-answer.js";
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
