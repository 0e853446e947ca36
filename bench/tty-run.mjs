// The interactive long run of issue 30's "No growth", measured by budget.bench.mjs (section tty-growth): awl in a
// real terminal (tmux, as test/cli/tmux-terminal.ts drives it), prompts typed turn after turn, every permission
// question answered with a key, slash commands typed, the screen read to know when a turn is over. Not a bench.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { awl } from "./support.mjs";

const run = promisify(execFile);

/** A tmux server of its own (its own socket, removed by `stop`: tmux leaves it behind), one window of `columns` x `rows`. */
class Tmux {
  socket = join(tmpdir(), `awl-bench-${process.pid}-${Math.random().toString(36).slice(2)}`);
  tmux = (...args) => run("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], { maxBuffer: 1 << 24 });
  start = (command, columns = 100, rows = 40) => this.tmux("new-session", "-d", "-s", "awl", "-x", String(columns), "-y", String(rows), command);
  /** Literal text, then Enter. */
  async line(text) {
    await this.tmux("send-keys", "-t", "awl", "-l", text);
    await this.tmux("send-keys", "-t", "awl", "Enter");
  }
  key = (key) => this.tmux("send-keys", "-t", "awl", key);
  /** The last `lines` lines (history included), wrapped lines joined back. */
  screen = async (lines = 200) => (await this.tmux("capture-pane", "-p", "-J", "-S", `-${lines}`, "-t", "awl")).stdout;
  pid = async () => Number((await this.tmux("display-message", "-p", "-t", "awl", "#{pane_pid}")).stdout.trim());
  stop = async () => {
    await this.tmux("kill-server").catch(() => {});
    rmSync(this.socket, { force: true });
  };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** How often the screen is read while waiting (each read is a tmux process). */
const POLL_MS = 40;
/** A wait that never ends is a broken run, not a slow one. */
const LIMIT_MS = 60_000;

/**
 * awl (with the probe's Node flags and `args`) in a terminal, in `where` (cwd, env). Returns the driver: `turn(tag,
 * prompt)` types a prompt whose text starts with `tag` (unique per turn) and resolves when the reply ("done") is
 * drawn and the prompt is back, answering each permission question on the way with `y` (allow once) — with the
 * number of questions answered and the turn's text on the screen; `command(text, drawn)` types a slash command and waits for `drawn`; `waitFor(re)`;
 * `pid()`; `stop()`.
 */
export async function startTty(where, probe, args) {
  const tmux = new Tmux();
  const env = Object.entries(where.env).map(([k, v]) => `${k}=${quote(v)}`).join(" ");
  // `exec`: the pane's process is awl's node itself (the probe is signalled by that pid).
  await tmux.start(`cd ${quote(where.cwd)} && exec env -i ${env} ${quote(process.execPath)} ${[...probe.nodeArgs, awl, ...args].map(quote).join(" ")}`);
  /** Polls the screen until `done(screen)` gives a value. */
  const until = async (what, done) => {
    const deadline = Date.now() + LIMIT_MS;
    for (;;) {
      const screen = await tmux.screen();
      const value = done(screen);
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it shows:\n${screen.split("\n").slice(-40).join("\n")}`);
      await pause(POLL_MS);
    }
  };
  await until("the prompt", (s) => (/^>\s*$/m.test(s) ? true : undefined)).catch(async (error) => {
    await tmux.stop();
    throw error;
  });
  return {
    async turn(tag, prompt) {
      await tmux.line(prompt);
      let answered = 0;
      return until(`the end of "${tag}"`, (screen) => {
        const at = screen.lastIndexOf(`\n> ${tag}`);
        if (at < 0) return undefined;
        const turn = screen.slice(at);
        if (/\ndone\n>[ \t]*\n/.test(turn)) return { answered, text: turn };
        // Questions are asked one after another: answer one once it is drawn and the one before has its answer.
        const asked = count(turn, /^\? .* wants to /gm);
        const settled = count(turn, /^allowed once$/gm);
        if (asked > answered && settled === answered && /y allow once/.test(turn.slice(turn.lastIndexOf("wants to ")))) {
          answered++;
          void tmux.key("y");
        }
        return undefined;
      });
    },
    async command(text, drawn) {
      await tmux.line(text);
      await until(String(drawn), (s) => (drawn.test(s.slice(s.lastIndexOf(`\n> ${text}`))) ? true : undefined));
    },
    waitFor: (what) => until(String(what), (s) => (what.test(s) ? true : undefined)),
    pid: () => tmux.pid(),
    async stop() {
      await tmux.key("C-d");
      await pause(300);
      await tmux.stop();
    },
  };
}

const count = (text, re) => text.match(re)?.length ?? 0;
const quote = (word) => (/^[\w./=:,@+-]+$/.test(word) ? word : `'${String(word).replace(/'/g, "'\\''")}'`);
