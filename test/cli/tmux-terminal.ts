/** Drives the built `awl` in a real terminal (tmux) against a local replay server, for the interactive tests. */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach } from "vitest";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { AWL, tempDir } from "./run-awl.js";

const run = promisify(execFile);

/**
 * One tmux server per test, on its own socket, so nothing else on the machine is touched. The socket lies in a temp
 * folder of the test's: tmux leaves it behind when its server ends.
 */
export class Terminal {
  private readonly socket = join(tempDir("awl-tmux-"), "socket");

  async start(command: string, columns = 100, rows = 30): Promise<void> {
    await this.tmux("new-session", "-d", "-s", "awl", "-x", String(columns), "-y", String(rows), command);
  }

  async keys(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "awl", ...keys);
  }

  /** Sends these bytes as the terminal would (e.g. a focus report, `\x1b[O`), in one write. */
  async bytes(data: string): Promise<void> {
    await this.tmux("send-keys", "-t", "awl", "-H", ...[...Buffer.from(data)].map((b) => b.toString(16).padStart(2, "0")));
  }

  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "awl", "-l", text);
  }

  /** Pastes `text` as a terminal does: bracketed when the program asked for it. */
  async paste(text: string): Promise<void> {
    await this.tmux("set-buffer", "-b", "awl-test", "--", text);
    await this.tmux("paste-buffer", "-p", "-d", "-b", "awl-test", "-t", "awl");
  }

  /** Pastes the text of `file` as {@link paste} does: for a text too large for a command line (megabytes). */
  async pasteFile(file: string): Promise<void> {
    await this.tmux("load-buffer", "-b", "awl-test", file);
    await this.tmux("paste-buffer", "-p", "-d", "-b", "awl-test", "-t", "awl");
  }

  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux("resize-window", "-t", "awl", "-x", String(columns), "-y", String(rows));
  }

  /**
   * The visible screen as text; `styled`: with the escape sequences of its colours and attributes; `history`:
   * with the lines scrolled out of view above it; `joined`: lines the terminal wrapped joined back into one
   * (what a copy of them gives).
   */
  async screen(options: { styled?: boolean; history?: boolean; joined?: boolean } = {}): Promise<string> {
    const extra = [...(options.styled ? ["-e"] : []), ...(options.history ? ["-S", "-"] : []), ...(options.joined ? ["-J"] : [])];
    return (await this.tmux("capture-pane", "-p", ...extra, "-t", "awl")).stdout;
  }

  /** The pane's title (what an OSC 0/2 sequence sets). */
  async title(): Promise<string> {
    return (await this.tmux("display-message", "-p", "-t", "awl", "#{pane_title}")).stdout.trim();
  }

  /** Waits until the screen matches (a generous limit; no timing is asserted). */
  waitFor(pattern: RegExp, limitMs = 15_000): Promise<string> {
    return this.waitForScreen(pattern, limitMs, {});
  }

  /** Waits until the screen with its styles (SGR sequences: colours, reverse video of the cursor) matches. */
  waitForStyled(pattern: RegExp, limitMs = 15_000): Promise<string> {
    return this.waitForScreen(pattern, limitMs, { styled: true });
  }

  private async waitForScreen(pattern: RegExp, limitMs: number, options: { styled?: boolean }): Promise<string> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const screen = await this.screen(options);
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Ends the terminal and waits (10 s at most) until what ran in it has exited: awl writes its caches as it exits,
   * and the test's home is removed next.
   */
  async stop(): Promise<void> {
    const pane = await this.tmux("display-message", "-p", "-t", "awl", "#{pane_pid}").then((r) => Number(r.stdout.trim()), () => 0);
    await this.tmux("kill-server").catch(() => {});
    for (const deadline = Date.now() + 10_000; pane > 0 && Date.now() < deadline && groupRuns(pane); ) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  private tmux(...args: string[]) {
    return run("tmux", ["-S", this.socket, "-f", "/dev/null", ...args]);
  }
}

/** Whether a process of process group `id` still runs. */
function groupRuns(id: number): boolean {
  try {
    process.kill(-id, 0);
    return true;
  } catch {
    return false;
  }
}

export interface LaunchOptions {
  extraEnv?: string[];
  configFile?: string;
  /** User extensions: file name → Lua source. */
  extensions?: Record<string, string>;
  /** Default a fresh one. */
  home?: string;
  /** The working directory awl starts in (default: the test's). */
  cwd?: string;
  args?: string[];
  columns?: number;
  rows?: number;
}

/**
 * Starts awl in `terminal` against `server` (an OpenAI-compatible endpoint), with extra variables, a config file and
 * user extensions; `home` (default a fresh one) and awl's arguments can be given. Returns the home.
 */
export async function launchAwl(terminal: Terminal, server: ReplayServer, options: LaunchOptions = {}): Promise<string> {
  const { home, command } = awlCommand(server, options);
  // When awl exits the shell prints its exit code, so the test can see it.
  await terminal.start(`${command}; echo "[awl exited $?]"; sleep 60`, options.columns, options.rows);
  return home;
}

/** The shell command that runs awl as `launchAwl` does (the home prepared), for a test that types it into a shell. */
export function awlCommand(server: ReplayServer, options: LaunchOptions = {}): { home: string; command: string } {
  const home = options.home ?? tempDir("awl-home-");
  for (const [name, source] of Object.entries(options.extensions ?? {})) {
    mkdirSync(join(home, ".config", "awl", "extensions"), { recursive: true });
    writeFileSync(join(home, ".config", "awl", "extensions", name), source);
  }
  if (options.configFile !== undefined) {
    mkdirSync(join(home, ".config", "awl"), { recursive: true });
    writeFileSync(join(home, ".config", "awl", "config.json"), options.configFile);
  }
  const env = [`PATH=${process.env.PATH}`, `TMPDIR=${tmpdir()}`, `HOME=${home}`, `XDG_CONFIG_HOME=${join(home, ".config")}`, "TERM=xterm-256color",
    `AWL_BASE_URL=${server.url}/v1`, "AWL_API_KEY=sk-test", "AWL_MODEL=gpt-test", ...(options.extraEnv ?? [])];
  const args = (options.args ?? []).map(shellQuote).join(" ");
  const cd = options.cwd !== undefined ? `cd ${shellQuote(options.cwd)} && ` : "";
  return { home, command: `${cd}env -i ${env.join(" ")} ${process.execPath} ${AWL} ${args}` };
}

function shellQuote(word: string): string {
  return /^[\w./=:-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * What each interactive test gets: a fresh replay server and a fresh terminal (its own tmux socket), closed after
 * the test. Call once at the top of a test file (it registers `beforeEach`/`afterEach`):
 *
 * ```ts
 * const tty = tmuxTest();
 * it("answers", async () => {
 *   tty.server.enqueue(openaiAnswer("Hi."));
 *   await tty.start();
 *   await tty.send("hello");
 *   await tty.terminal.waitFor(/Hi\.\n>/);
 * });
 * ```
 */
export interface TmuxTest {
  readonly server: ReplayServer;
  readonly terminal: Terminal;
  /** Starts awl (see {@link launchAwl}) and returns its home, without waiting for anything. */
  launch(options?: LaunchOptions): Promise<string>;
  /** Starts awl and waits until its empty prompt is drawn; returns its home. */
  start(options?: LaunchOptions): Promise<string>;
  /** Types `prompt` and presses Enter. */
  send(prompt: string): Promise<void>;
  /** Closes the terminal (awl sees it go away) and opens a fresh one, the server kept: for a second run. */
  reopen(): Promise<void>;
}

export function tmuxTest(): TmuxTest {
  let server: ReplayServer | undefined;
  let terminal: Terminal | undefined;
  beforeEach(async () => {
    server = await startReplayServer();
    terminal = new Terminal();
  });
  afterEach(async () => {
    await terminal?.stop();
    await server?.close();
  });
  const test: TmuxTest = {
    get server() {
      if (!server) throw new Error("tmuxTest(): the server exists only inside a test");
      return server;
    },
    get terminal() {
      if (!terminal) throw new Error("tmuxTest(): the terminal exists only inside a test");
      return terminal;
    },
    launch: (options) => launchAwl(test.terminal, test.server, options),
    async start(options) {
      const home = await test.launch(options);
      await test.terminal.waitFor(/^>\s*$/m);
      return home;
    },
    async send(prompt) {
      await test.terminal.type(prompt);
      await test.terminal.keys("Enter");
    },
    async reopen() {
      await test.terminal.stop();
      terminal = new Terminal();
    },
  };
  return test;
}
