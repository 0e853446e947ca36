/**
 * The interactive mode runs no ES module either (issue 30: scripts/bundle-cli.mjs): its prompt, a reply drawn as
 * Markdown with a highlighted code block and the exit load only CommonJS files (the bundled ESM-only packages,
 * marked and string-width, among the bundle's chunks: marked in the Markdown renderer's own). Through tmux, the load reported as awl exits.
 */
import { expect, it } from "vitest";
import { chunkName, loadReporter } from "./load-report.js";
import { openaiAnswer } from "./openai-answer.js";
import { tmuxTest } from "./tmux-terminal.js";

const tty = tmuxTest();

it("the prompt, a Markdown reply with a code block, and Ctrl-D load no ES module", async () => {
  const reporter = loadReporter();
  tty.server.enqueue(openaiAnswer("Some **bold** wörds 👋 and:\n\n```js\nconst x = 1;\n```\n"));
  await tty.start({ extraEnv: Object.entries(reporter.env).map(([name, value]) => `${name}=${value}`) });
  await tty.send("hi");
  await tty.terminal.waitFor(/const x = 1;[\s\S]*^>/m);
  await tty.terminal.keys("C-d");
  await tty.terminal.waitFor(/\[awl exited 0\]/);
  const { files, esModules } = reporter.read();
  expect(esModules).toBe(false);
  expect(files.map(chunkName)).toEqual(expect.arrayContaining(["interactive", "render-markdown", "string-width", "node_modules/highlight.js/lib/core.js"]));
}, 60_000);
