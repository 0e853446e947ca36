/**
 * The interactive mode: a `> ` prompt (line-editor.ts) on a raw-mode terminal (terminal-input.ts); each
 * prompt sent is one agent turn streamed to the terminal (docs/cli.md, "Interactive mode").
 *
 * - Keys typed during a turn are never echoed into the answer: they edit the prompt, shown with the prompts
 *   queued (Enter queues the text) and the status line in a pane under the live output (turn-pane.ts); a queued
 *   prompt is shown (`> text`) when its turn starts, after the running one.
 * - Ctrl-C or Esc cancels the running turn (the agent answers every tool call, the conversation stays usable);
 *   prompts queued behind it come back into the prompt, unsent. At the prompt Ctrl-C clears the text, and
 *   twice on an empty prompt exits; Ctrl-D on an empty prompt exits; Ctrl-Z suspends awl as a shell job.
 * - A prompt is only ever sent by Enter: when the terminal closes, a half-typed prompt is dropped.
 */
import type { PromptContent, TurnOptions } from "../../agent-session/agent-session.js";
import { reloadLines } from "../../extensions/reload-report.js";
import { turnEndText } from "../../ui/output/notices.js";
import { statusLine, type StatusFacts } from "../../ui/output/status-line.js";
import { TerminalRenderer } from "../../ui/output/terminal-renderer.js";
import { loadDisplayWidth } from "../../ui/output/width.js";
import { loadMarkdown } from "../../ui/markdown/load.js";
import type { Runtime } from "../../runtime/runtime.js";
import { showResumedSession } from "../session-history.js";
import { drawOnAbruptEnd } from "../../runtime/termination.js";
import { outputOrder } from "../../ui/output/output-order.js";
import { wrapText, writeNotice } from "../../ui/output/wrap-text.js";
import type { KeyEvent } from "../../ui/editor/key-decoder.js";
import type { EditorAction } from "../../ui/editor/line-editor.js";
import { PermissionPrompt } from "../../ui/prompts/permission-prompt.js";
import { cycleMode } from "./permission-commands.js";
import { PlanPrompt } from "../../ui/prompts/plan-prompt.js";
import { layoutPrompt } from "../../ui/editor/prompt-layout.js";
import { completeSlashCommand, findSlashCommand, invocableCommands } from "./slash-commands.js";
import type { SlashContext } from "./slash-command.js";
import { invokePrompt } from "../../runtime/prompt-invocation.js";
import type { ContentBlock } from "../../model/blocks.js";
import { attachMentionedFiles, completeFileMention } from "../../runtime/file-mentions.js";
import { runShellCommand, shellRunText } from "./shell-command.js";
import { stripControls } from "../../ui/safe-text.js";
import { Picker, type PickerItem } from "../../ui/prompts/picker.js";
import { resumeCommand } from "../session-history.js";
import { openHistory, userPrompts } from "./history-setup.js";
import { oneLine } from "../../ui/output/tool-block.js";
import { expandedBlocksText, type Expandable } from "../../ui/output/expanded-blocks.js";
import type { Conversation } from "../../model/conversation.js";
import { InteractiveScreen } from "./screen.js";
import { Notifier, notifyStyle, type NotifySetting } from "../../ui/notify.js";
import { TodoSummary } from "../../ui/todo-list.js";
import { TurnPane } from "../../ui/output/turn-pane.js";
import { runningJobsText } from "../../jobs/job-table.js";
import { refreshCompileCachesAtExit } from "../compile-cache.js";

interface Submission {
  text: string;
  /** Already on screen as typed (sent from the prompt, not queued during a turn). */
  shown: boolean;
}

/** Queued prompts listed under a turn's output. */
const QUEUED_SHOWN = 3;

/**
 * Runs the interactive mode until the user exits. `opened`: the screen the main command drew its prompt on before
 * the runtime was built (keys typed since are handled now); without it the screen opens here, after what a
 * resumed session shows and before the session picker of `-r` without an id.
 */
export async function runInteractive(runtime: Runtime, firstPrompt: string, opened?: InteractiveScreen): Promise<number> {
  refreshCompileCachesAtExit(); // a long run: its chunks' caches, perhaps first written by `awl -p`, may hold more at exit
  const screen = opened ?? new InteractiveScreen(runtime.providerSettings);
  const { out, sink, editor, input } = screen;
  // A turn's end and a waiting question are told to a user whose terminal window is not focused.
  const notifier = new Notifier(out, notifyStyle(runtime.options.config?.get<NotifySetting>("notifications")?.value, process.env));
  const todoSummary = new TodoSummary();
  // The status line's figures, read when it is drawn (under the prompt, and on the waiting line of a turn).
  const statusFacts = (): StatusFacts => ({
    snapshot: runtime.usage.meter.snapshot(),
    ...(runtime.permissions && { mode: runtime.permissions.engine.mode }),
    starting: runtime.hosts.mcp?.starting() ?? [],
    todo: todoSummary.text(runtime.conversation),
  });
  /** What `!command` runs produced since the last prompt: the next prompt sent starts with it. */
  const shellRuns: string[] = [];
  const queue: Submission[] = [];
  const columns = (): number => screen.columns();
  const rows = (): number => screen.rows();
  // While a turn runs: what is typed for the next prompt (and the prompts queued) and the status line, under the output.
  const pane = new TurnPane(out, (width) => {
    const typed = editor.preview(width - 1, Math.max(1, Math.floor(rows() / 4)));
    // The next prompts queued; past three, the rest counted.
    const shown = queue.length > QUEUED_SHOWN ? [...queue.slice(0, QUEUED_SHOWN - 1).map((q) => q.text), `… and ${queue.length - QUEUED_SHOWN + 1} more`] : queue.map((q) => q.text);
    const queued = shown.map((text) => dimmed(oneLine(`↳ queued: ${text}`, width - 1)));
    return [...queued, ...typed, statusLine(statusFacts(), width, sink.color)];
  });
  const dimmed = (text: string): string => (sink.color ? `\x1b[2m${text}\x1b[22m` : text);
  let turn: AbortController | undefined;
  let renderer: TerminalRenderer | undefined;
  let closed = false;
  /** The loop waits at the prompt for what the user sends (no turn, picker or command runs). */
  let atPrompt = false;
  let exitArmed = false;
  /** Esc was pressed on an empty prompt: a second Esc (nothing typed between) opens the rewind dialogue. */
  let rewindArmed = false;
  let wake: (() => void) | undefined;
  /** The tool blocks and thinking of the last turn that had any, in the order they ended (what Ctrl-O / Alt-O show). */
  let lastBlocks: readonly Expandable[] = [];
  let pendingExpand: "expand-last" | "expand-all" | undefined;
  const expand = async (which: "expand-last" | "expand-all"): Promise<void> => {
    const blocks = which === "expand-last" ? lastBlocks.slice(-1) : lastBlocks;
    const text = await expandedBlocksText(blocks, runtime.agent.tools, columns(), sink.color);
    if (editor.shown) editor.printAbove(text);
    else {
      sink.endLine();
      sink.write(text);
    }
  };
  /** A list being chosen from (the session picker) takes the keys while it is open. */
  let picker: Picker<unknown> | undefined;

  const pick = async <T>(title: string, items: readonly PickerItem<T>[], options: { currentLabel?: string } = {}): Promise<T | undefined> => {
    sink.endLine();
    const open = new Picker(out, items, { ...options, title, columns, rows: Math.max(3, Math.min(10, (out.rows ?? 24) - 6)) });
    picker = open as Picker<unknown>;
    try {
      return await open.result;
    } finally {
      picker = undefined;
    }
  };

  const print = (text: string): void => {
    sink.endLine();
    sink.write(`${wrapText(text, columns())}\n`);
  };

  const close = (): void => {
    closed = true;
    picker?.cancel();
    turn?.abort();
    wake?.();
  };

  const cancelTurn = (): void => {
    turn?.abort();
    // What was queued behind the cancelled turn comes back to the prompt rather than running unasked.
    const queued = queue.splice(0).map((s) => s.text);
    if (queued.length > 0) editor.setText([...queued, editor.text].filter((t) => t !== "").join("\n"));
  };

  // Permission questions take the keys while one is open (the permission layer asks one at a time).
  const permissionPrompt = new PermissionPrompt(sink, () => columns() - 1);
  runtime.permissions?.setAsk(async (request, signal) => {
    // The running blocks leave the screen while the question is open: nothing animates over what the user types.
    const asking = renderer;
    asking?.holdBlocks();
    notifier.notify(`awl: ${request.tool.name} waits for your permission`);
    try {
      return await permissionPrompt.ask(request, signal);
    } finally {
      asking?.releaseBlocks();
    }
  }, () => cancelTurn());
  // Plan mode's plan (exit_plan) is approved, edited or rejected here; an editor gets the terminal meanwhile.
  const planPrompt = new PlanPrompt(sink, {
    columns: () => columns() - 1,
    handOver: (edit) => {
      input.stop();
      try {
        edit();
      } finally {
        input.start();
      }
    },
  });
  runtime.plan?.setReview(async (plan, signal) => {
    const asking = renderer;
    asking?.holdBlocks();
    notifier.notify("awl: a plan waits for your approval");
    try {
      return await planPrompt.review(plan, signal);
    } finally {
      asking?.releaseBlocks();
    }
  }, { onCancelTurn: () => cancelTurn(), onModeChange: () => pane.refresh() });

  const onKey = (event: KeyEvent): void => {
    if (permissionPrompt.active) return permissionPrompt.handle(event);
    if (planPrompt.active) return planPrompt.handle(event);
    if (picker) return picker.handle(event);
    onAction(editor.handle(event));
  };

  /** What the prompt asked for after a key (none: the text was edited). */
  const onAction = (action: EditorAction | undefined): void => {
    if (action?.type !== "escape") rewindArmed = false;
    if (!action) {
      exitArmed = false;
      return;
    }
    switch (action.type) {
      case "submit":
        exitArmed = false;
        history?.add(action.text);
        // On screen as typed only when it is handled next: behind another (keys typed while awl started, read at
        // once), the output of the one before it takes its place and it is written again when its turn comes.
        queue.push({ text: action.text, shown: !turn && queue.length === 0 });
        pane.refresh();
        wake?.();
        return;
      case "escape":
        if (turn) return cancelTurn();
        if (editor.text !== "" || !editor.shown) return;
        if (!rewindArmed) {
          rewindArmed = true;
          editor.printAbove(sink.color ? "\x1b[2m(Esc again to rewind)\x1b[22m\n" : "(Esc again to rewind)\n");
          return;
        }
        rewindArmed = false;
        editor.leave();
        queue.push({ text: "/rewind", shown: true });
        wake?.();
        return;
      case "interrupt":
        if (turn) return cancelTurn();
        if (editor.text !== "") {
          exitArmed = false;
          return editor.setText("");
        }
        if (exitArmed) return close();
        exitArmed = true;
        editor.printAbove(sink.color ? "\x1b[2m(press Ctrl-C again or Ctrl-D to exit)\x1b[22m\n" : "(press Ctrl-C again or Ctrl-D to exit)\n");
        return;
      case "eof":
        return close();
      case "search-history":
        if (!turn) void searchHistory();
        return;
      case "paste-image":
        void pasteImage();
        return;
      case "backtab":
        if (runtime.permissions) cycleMode(runtime.permissions.engine);
        editor.refreshFooter();
        pane.refresh();
        return;
      case "expand-last":
      case "expand-all":
        // During a turn the output is live: the expansion comes once the turn is over.
        if (turn) pendingExpand = action.type;
        else void expand(action.type);
        return;
      case "suspend":
        editor.leave();
        // Drawn again when the loop waits at the prompt (a Ctrl-Z typed before the loop began leaves that to the loop).
        input.suspend(() => {
          if (atPrompt && !closed && !editor.shown) editor.show();
        });
        return;
    }
  };

  async function runTurn(text: PromptContent, options: TurnOptions = {}): Promise<void> {
    // Loaded by now unless the turn comes from the command line: then it is worth the wait.
    await Promise.all([loadDisplayWidth(), loadMarkdown()]);
    turn = new AbortController();
    // The output has the screen less the pane's rows; thinking and awl's lines keep the last column free for it.
    const outputRows = (): number => Math.max(3, rows() - pane.height);
    renderer = new TerminalRenderer(
      sink,
      sink,
      true,
      { tools: runtime.agent.tools, redraw: true, elapsed: true, spinner: sink.color, rows: outputRows },
      { answerColumns: columns, asideColumns: () => columns() - 1, answerRows: outputRows, activity: true, collapseThinking: true, onUsage: () => pane.refresh() },
    );
    const live = renderer;
    const undo = drawOnAbruptEnd(() => {
      // The screen stays as this leaves it: no prompt is drawn again while awl ends.
      closed = true;
      leavePane();
      live.interrupt("stopped: awl was ended");
      outputOrder.end();
    });
    outputOrder.frame = pane;
    pane.attach();
    renderer.begin();
    const { result } = await runtime.runTurn(text, renderer, turn.signal, options);
    // After a turn that ran tools, the prompt comes back once awl's view of the files after it is saved (a few ms:
    // docs/checkpoints.md, "The watch"), so an edit made at the prompt is always one made outside awl.
    if (result.steps > 1) await runtime.branching?.checkpointsSaved();
    turn = undefined;
    notifier.notify(result.stop_reason === "error" ? "awl: the turn ended with an error" : "awl: the turn ended");
    await renderer.finish();
    leavePane();
    if (renderer.ended.length > 0) lastBlocks = renderer.ended;
    undo();
    renderer = undefined;
    const note = turnEndText(result, runtime.settings);
    if (result.stop_reason === "cancelled") sink.dim("(cancelled; a partial answer is not kept)\n");
    else if (note) writeNotice(process.stderr, note);
    const running = runtime.jobs?.running() ?? [];
    if (running.length > 0) sink.dim(`${wrapText(`(${runningJobsText(running, "/jobs lists them; they stop when awl exits")})`, columns() - 1)}\n`);
    const asked = pendingExpand;
    pendingExpand = undefined;
    if (asked) await expand(asked);
  }

  function leavePane(): void {
    pane.detach();
    outputOrder.frame = undefined;
  }

  function slashContext(): SlashContext {
    return { runtime, print, exit: close, sink, pick, setPrompt: (text) => editor.setText(text) };
  }

  async function handle(submission: Submission): Promise<void> {
    const { text } = submission;
    if (!submission.shown) {
      sink.endLine();
      sink.write(`${layoutPrompt(text, text.length, columns() - 1).rows.join("\n")}\n`);
    }
    if (text.trim() === "") return;
    if (text.trimStart().startsWith("!")) return runShell(text.trimStart().slice(1).trim());
    if (text.trimStart().startsWith("/")) return runSlash(text);
    const attachments = attachMentionedFiles(text, process.cwd());
    if (attachments.attached.length > 0) sink.dim(`(attached ${attachments.attached.join(", ")})\n`);
    for (const note of attachments.notes) sink.dim(`(${note})\n`);
    // `$skill-name` in the prompt adds that skill's instructions.
    await sendInvoked([{ type: "text", text: attachments.text }, ...attachments.images]);
  }

  /** Sends `content` as a command or skill makes it (src/runtime/prompt-invocation.ts), after the `!command` runs' output. */
  async function sendInvoked(content: ContentBlock[], named?: string): Promise<void> {
    const invoked = await cancellable((signal) => invokePrompt(content, runtime, process.cwd(), signal));
    if (invoked.kind === "printed") return invoked.text === "" ? undefined : print(invoked.text.replace(/\n+$/, ""));
    if (invoked.kind === "refused") return print(invoked.message);
    if (named !== undefined && invoked.named === undefined) return print(`unknown command /${named}; /help lists them`);
    for (const note of invoked.notes) sink.dim(`(${note})\n`);
    const ran = shellRuns.splice(0);
    const blocks: ContentBlock[] = typeof invoked.content === "string" ? [{ type: "text", text: invoked.content }] : [...invoked.content];
    const first = blocks[0];
    if (first?.type === "text") blocks[0] = { type: "text", text: [...ran, first.text].join("\n\n") };
    await runTurn(blocks.length === 1 && blocks[0]!.type === "text" ? blocks[0]!.text : blocks, invoked.model === undefined ? {} : { model: invoked.model });
  }

  /** Runs `work` with a signal that Esc and Ctrl-C abort. */
  async function cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    turn = new AbortController();
    try {
      return await work(turn.signal);
    } finally {
      turn = undefined;
    }
  }

  async function runSlash(text: string): Promise<void> {
    // awl's own commands first; then prompt commands, skills and the extensions' commands.
    const found = findSlashCommand(text);
    if ("unknown" in found) return sendInvoked([{ type: "text", text: text.trim() }], found.unknown);
    return found.command.run(found.args, slashContext());
  }

  async function runShell(command: string): Promise<void> {
    if (command === "") return print("usage: !COMMAND runs it in the shell; its output goes with your next prompt");
    turn = new AbortController();
    sink.endLine();
    try {
      const ran = await runShellCommand(command, process.cwd(), turn.signal, (text) => sink.write(stripControls(text).replace(/\r(?!\n)/g, "")));
      sink.endLine();
      sink.dim(`(${ran.status}; the output goes with your next prompt)\n`);
      shellRuns.push(shellRunText(ran));
    } finally {
      turn = undefined;
    }
  }

  /** The next prompt to handle: a queued one, else what the user sends at the prompt; undefined once closed. */
  async function next(): Promise<Submission | undefined> {
    while (!closed) {
      const queued = queue.shift();
      if (queued) return queued;
      if (!editor.shown) {
        sink.endLine();
        editor.show();
      }
      atPrompt = true;
      await new Promise<void>((resolve) => (wake = resolve));
      atPrompt = false;
      wake = undefined;
    }
    return undefined;
  }

  // Hot reload: what awl says about a reload goes above the prompt, or into the turn between its model calls
  // (dimmed; a warning, `dim` false, is not).
  const notice = (text: string, dim = true): void => {
    if (renderer) return renderer.notice(text);
    if (!editor.shown) return print(text);
    // Wrapped at words, as awl's other lines are (the terminal would break it mid-word).
    const wrapped = wrapText(text.replace(/\n+$/, ""), columns() - 1);
    editor.printAbove(sink.color && dim ? `\x1b[2m${wrapped}\x1b[22m\n` : `${wrapped}\n`);
  };
  const lua = runtime.hosts.lua;
  const stopListening = lua?.onReload((report) => reloadLines(report).forEach((line) => notice(line)));
  // A save while no turn runs is applied at once (between model calls by definition); during a turn the agent
  // applies it before its next model call.
  const refreshIdle = (): void => {
    if (!turn && !closed) void lua?.refresh();
  };

  const onResize = (): void => {
    editor.resize();
    // The rows under a turn's output, as the terminal re-wrapped them, erased and drawn for the new width.
    pane.refresh();
    renderer?.resize();
  };
  // Prompts of earlier runs here (Up/Down), every directory's for Ctrl-R; then a resumed session's own.
  const history = openHistory(runtime);
  for (const text of history?.here() ?? []) editor.addHistory(text);
  /** Ctrl-V: the clipboard's image, saved as a file, goes into the prompt as `@path` (attached when sent). */
  const pasteImage = async (): Promise<void> => {
    const { pasteClipboardImage } = await import("../../ui/clipboard-image.js");
    const pasted = await pasteClipboardImage();
    if ("error" in pasted) return notice(pasted.error);
    editor.insert(`@${pasted.path.replace(/ /g, "\\ ")} `);
  };
  const searchHistory = async (): Promise<void> => {
    const entries = history?.everywhere() ?? [];
    editor.leave();
    const chosen = entries.length === 0 ? (print("no prompts in the history yet"), undefined) : await pick(
      "search the prompt history (every directory)",
      entries.map((e) => ({ value: e.text, label: `${oneLine(e.text, 200)}${e.cwd === process.cwd() ? "" : `  (${e.cwd})`}`, search: e.text })),
    );
    if (closed) return;
    editor.show();
    if (chosen !== undefined) editor.setText(chosen);
  };
  let remembered: Conversation | undefined;
  const rememberPrompts = (): void => {
    if (remembered === runtime.conversation) return;
    remembered = runtime.conversation;
    for (const text of userPrompts(runtime.conversation.messages)) editor.addHistory(text);
  };
  if (!opened) {
    screen.greet();
    await showResumedSession(runtime, sink);
  }
  rememberPrompts();
  // The prompt of the command line first, then what was typed at the prompt drawn before the runtime was built.
  if (firstPrompt.trim() !== "") {
    editor.addHistory(firstPrompt);
    queue.push({ text: firstPrompt, shown: false });
  }
  screen.adopt({
    onKey,
    onAction,
    onEnd: close,
    onFocus: (focused) => notifier.setFocus(focused),
    onResize,
    complete: (text) => [...completeSlashCommand(text, invocableCommands(runtime)), ...completeFileMention(text, process.cwd())],
    footer: (width) => statusLine(statusFacts(), width, sink.color),
    onHiddenChange: () => pane.refresh(),
    notice: (text) => notice(text, false),
  });
  if (!opened) screen.start();
  // `awl -r` without an id: the picker first (leaving it starts a new conversation).
  if (runtime.options.cli.flags.resume === "") {
    await resumeCommand.run("", slashContext());
    rememberPrompts();
  }
  let stopStatus: (() => void) | undefined;
  // Exact widths for wide characters, loaded once the prompt is drawn (it takes tens of milliseconds), and then
  // the Markdown renderer; the watch of the extension folders starts then too, and the MCP servers (set up now when
  // nothing had to be asked about them first) with those whose tools are known from an earlier run, never
  // competing with the prompt for the CPU.
  setImmediate(() => {
    void loadDisplayWidth().then(loadMarkdown);
    // The skills', commands' and agents' folders ride on the same watcher (reach-reload.ts).
    void (async () => {
      const { reachWatchGroup } = await import("../reach-reload.js");
      const reach = reachWatchGroup(runtime, runtime.options.cwd ?? process.cwd(), runtime.options.permissions?.trusted === true, notice);
      await lua?.watch({ onChange: refreshIdle, onProblem: (message) => notice(`awl: ${message}`), groups: [reach] });
    })();
    // A server that fails from now on is reported like a reload, never over the prompt line; one that became
    // ready (or failed) leaves the status line's "starting" list.
    const report = (message: string): void => notice(`awl: ${message}`);
    void runtime.mcpServers(report).then((mcp) => {
      if (!mcp || closed) return;
      mcp.reportProblemsTo(report);
      stopStatus = mcp.onChange(() => editor.refreshFooter());
      editor.refreshFooter();
      mcp.startAll();
    });
  });
  try {
    for (let submission = await next(); submission; submission = await next()) {
      try {
        await handle(submission);
        rememberPrompts(); // a /resume brings its session's prompts into Up/Down
      } catch (e) {
        print(`awl: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    stopListening?.();
    stopStatus?.();
    screen.close();
  }
  return 0;
}
