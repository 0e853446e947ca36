/**
 * The interactive mode: a `> ` prompt (node:readline), each line one agent turn streamed to the terminal.
 * Ctrl-C cancels the running turn (the conversation stays usable: the agent answers every tool call);
 * at the prompt Ctrl-C clears the line, twice on an empty line exits; Ctrl-D exits.
 */
import { createInterface } from "node:readline";
import { turnEndText } from "../output/notices.js";
import { LineSink, wantsColor } from "../output/sink.js";
import { TerminalRenderer } from "../output/terminal-renderer.js";
import type { Runtime } from "../runtime.js";
import { showResumedSession } from "../session-history.js";
import { findSlashCommand } from "./slash-commands.js";

export async function runInteractive(runtime: Runtime, firstPrompt: string): Promise<number> {
  const out = process.stdout;
  const sink = new LineSink(out, wantsColor(out, process.env));
  const rl = createInterface({ input: process.stdin, output: out, prompt: "> ", historySize: 1000 });
  const lines: string[] = firstPrompt.trim() ? [firstPrompt] : [];
  let turn: AbortController | undefined;
  let busy = false;
  let closed = false;
  let exitArmed = false;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  const settings = runtime.providerSettings;
  sink.dim(`awl · ${settings.provider} ${settings.model} · /help for commands · Ctrl-C cancels a turn · Ctrl-D exits\n`);
  await showResumedSession(runtime, sink);

  const print = (text: string): void => {
    sink.endLine();
    sink.write(`${text}\n`);
  };

  async function handle(line: string): Promise<void> {
    if (line.trim() === "") return;
    if (line.trimStart().startsWith("/")) {
      const found = findSlashCommand(line);
      if ("unknown" in found) return print(`unknown command /${found.unknown}; /help lists them`);
      return found.command.run(found.args, { runtime, print, exit: () => rl.close(), sink });
    }
    turn = new AbortController();
    const renderer = new TerminalRenderer(sink, sink, true, { tools: runtime.agent.tools, redraw: Boolean(out.isTTY) });
    const { result } = await runtime.runTurn(line, renderer, turn.signal);
    turn = undefined;
    await renderer.finish();
    const note = turnEndText(result, runtime.settings);
    if (result.stop_reason === "cancelled") sink.dim("(cancelled; a partial answer is not kept)\n");
    else if (note) process.stderr.write(note);
  }

  async function drain(): Promise<void> {
    if (busy) return;
    busy = true;
    while (lines.length > 0 && !closed) {
      try {
        await handle(lines.shift()!);
      } catch (e) {
        print(`awl: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    busy = false;
    if (closed) finish(0);
    else rl.prompt();
  }

  rl.on("line", (line) => {
    exitArmed = false;
    lines.push(line);
    void drain();
  });
  rl.on("SIGINT", () => {
    if (turn) {
      turn.abort();
      return;
    }
    if (rl.line !== "") {
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
      exitArmed = false;
      return;
    }
    if (exitArmed) return rl.close();
    exitArmed = true;
    out.write("\n");
    sink.dim("(press Ctrl-C again or Ctrl-D to exit)\n");
    rl.prompt();
  });
  rl.on("close", () => {
    closed = true;
    turn?.abort();
    out.write("\n");
    if (!busy) finish(0);
  });

  void drain();
  return done;
}
