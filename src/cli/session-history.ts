/**
 * Shows a resumed session in the interactive mode by replaying its saved messages through the same
 * TerminalRenderer a live turn uses: text and thinking as streamed, each tool block (headed by its saved
 * `ctx:title`, else its input) drawn from its saved snapshot through the tool's `render(state, view)`
 * (ToolSet.render; never its `run`), or from the saved summary / result text when the tool is gone or has no
 * render. No tool runs and no model is called.
 */
import type { ToolUseBlock } from "../model/blocks.js";
import type { Message } from "../model/message.js";
import type { LoadedSession } from "../session/reader.js";
import type { ToolOutcome, ToolSet } from "../tools/types.js";
import type { SlashCommand } from "./interactive/slash-command.js";
import type { LineSink } from "../ui/output/sink.js";
import { TerminalRenderer } from "../ui/output/terminal-renderer.js";
import { oneLine } from "../ui/output/tool-block.js";
import { timeAgo } from "../ui/output/time-text.js";
import { loadDisplayWidth } from "../ui/output/width.js";
import { loadMarkdown } from "../ui/markdown/load.js";
import { stripControls } from "../ui/safe-text.js";
import { isUnansweredNote } from "../runtime/unanswered-note.js";
import type { Runtime } from "../runtime/runtime.js";
import { SessionHook } from "../runtime/session-hook.js";

/** Messages shown when a session is resumed; older ones are counted, not drawn. */
const SHOWN_MESSAGES = 40;

/** Draws the session on `sink`; `tools` renders the tool blocks. Resolves once everything is written. */
export async function showHistory(session: LoadedSession, sink: LineSink, tools?: ToolSet): Promise<void> {
  // Blocks and text are fitted to the screen by display width, and answers drawn as Markdown exactly as live: both
  // loaded before the first line (at start-up, `-c` / `-r`, they may not be yet).
  await Promise.all([loadDisplayWidth(), loadMarkdown()]);
  const messages = session.transcript;
  const skipped = Math.max(0, messages.length - SHOWN_MESSAGES);
  sink.dim(`resumed session ${session.header.id} (${session.header.cwd}, ${messages.length} messages${skipped ? `; the first ${skipped} not shown` : ""})\n`);
  // The terminal's layout, as for a live turn: text made safe and wrapped at the width.
  const columns = (): number => process.stdout.columns || 80;
  const renderer = new TerminalRenderer(sink, sink, true, tools ? { tools } : {}, { answerColumns: columns, asideColumns: columns });
  const calls = new Map<string, ToolUseBlock>();
  for (const message of messages.slice(skipped)) {
    if (message.role === "assistant") replayAssistant(message, renderer, calls);
    else replayUser(message, session, renderer, calls, sink);
  }
  sink.endLine();
  sink.dim("─── continue below ───\n");
  await renderer.finish();
}

function replayAssistant(message: Message, renderer: TerminalRenderer, calls: Map<string, ToolUseBlock>): void {
  renderer.onMessageStart();
  message.content.forEach((block, i) => {
    if (block.type === "tool_use") {
      calls.set(block.id, block);
      return; // drawn with its result, as live
    }
    renderer.onBlockStart(block.type, i);
    if (block.type === "text") renderer.onContentDelta(i, block.text);
    else if (block.type === "thinking") renderer.onContentDelta(i, block.thinking);
    renderer.onBlockComplete(i, block);
  });
}

function replayUser(message: Message, session: LoadedSession, renderer: TerminalRenderer, calls: Map<string, ToolUseBlock>, sink: LineSink): void {
  for (const block of message.content) {
    if (block.type === "text") {
      sink.endLine();
      if (isUnansweredNote(block.text)) sink.dim(`${block.text}\n`);
      else sink.write(`> ${stripControls(block.text).replace(/\n/g, "\n  ")}\n`);
    } else if (block.type === "image") {
      sink.endLine();
      sink.dim(`  [image: ${block.media_type}, ${Math.round((block.data.length * 3) / 4 / 1024)} KB]\n`);
    } else if (block.type === "tool_result") {
      const use = calls.get(block.tool_use_id);
      const call = { id: block.tool_use_id, name: use?.name ?? "tool", input: use?.input ?? "" };
      const { title, ...saved } = session.snapshots.get(call.id) ?? {};
      renderer.onToolStart(call);
      // The header shows the title the tool set live (ctx:title), not the raw input.
      if (title !== undefined) renderer.onToolProgress(call, { kind: "title", text: title });
      // The saved snapshot rides on the outcome, as a live call's last ctx:show state does: the block renders from it.
      const outcome: ToolOutcome = { status: "result", content: block.content, is_error: block.is_error === true, ...saved };
      renderer.onToolEnd(call, outcome, block);
    }
  }
}

/** `/resume [ID]`: without an id, pick one of this directory's sessions from a list; with one, continue it here. */
export const resumeCommand: SlashCommand = {
  name: "resume",
  args: "[ID]",
  summary: "continue a saved session (an id or unique prefix); no argument: pick one of this directory's from a list",
  run: async (args, { runtime, print, sink, pick }) => {
    const hook = sessionHookOf(runtime);
    if (!hook) return print("sessions are off (--no-session)");
    let id = args.trim();
    if (id === "") {
      const listed = hook.store.list({ cwd: process.cwd() });
      if (!listed.ok) return print(listed.error.message);
      if (listed.value.sessions.length === 0) return print(`no saved sessions for ${process.cwd()}`);
      const chosen = await pick(
        "resume a session of this directory",
        listed.value.sessions.map((s) => ({
          value: s.id,
          label: `${s.id}  ${timeAgo(s.updated)}  ${s.messages} messages  ${oneLine(s.first_prompt, 200)}`,
          search: s.first_prompt,
          current: s.id === hook.id,
        })),
      );
      if (chosen === undefined) return;
      id = chosen;
    }
    if (id === hook.id) return print(`already in session ${id}`);
    const resumed = hook.resume(id, runtime);
    if (!resumed.ok) return print(`cannot resume: ${resumed.error.message}`);
    await showHistory(resumed.value, sink, runtime.agent.tools);
    hook.resumed = undefined;
  },
};

/** `/sessions`: this directory's recent sessions, the current one marked. */
export const sessionsCommand: SlashCommand = {
  name: "sessions",
  summary: "list this directory's recent sessions (/resume picks one)",
  run: (_args, { runtime, print }) => {
    const hook = sessionHookOf(runtime);
    print(hook ? recentList(hook) : "sessions are off (--no-session)");
  },
};

function recentList(hook: SessionHook): string {
  const listed = hook.store.list({ cwd: process.cwd() });
  if (!listed.ok) return listed.error.message;
  const recent = listed.value.sessions.slice(0, 10);
  if (recent.length === 0) return `no saved sessions for ${process.cwd()}`;
  const rows = recent.map((s) => ({ id: s.id, when: timeAgo(s.updated), count: `${s.messages} messages`, prompt: `${oneLine(s.first_prompt, 50)}${s.id === hook.id ? "  (current)" : ""}` }));
  const whenWidth = Math.max(...rows.map((r) => r.when.length));
  const countWidth = Math.max(...rows.map((r) => r.count.length));
  const lines = rows.map((r) => `  ${r.id}  ${r.when.padEnd(whenWidth)}  ${r.count.padStart(countWidth)}  ${r.prompt}`);
  return [`sessions of ${process.cwd()} (most recent first; /resume picks one, /resume ID continues it):`, ...lines].join("\n");
}

/** Shows the session `-c` / `-r` opened, once, when the interactive mode starts. */
export async function showResumedSession(runtime: Runtime, sink: LineSink): Promise<void> {
  const hook = sessionHookOf(runtime);
  if (!hook?.resumed) return;
  await showHistory(hook.resumed, sink, runtime.agent.tools);
  hook.resumed = undefined;
}

/** The runtime's session hook, when sessions are on. */
export function sessionHookOf(runtime: Runtime): SessionHook | undefined {
  return runtime.hooks.find((h): h is SessionHook => h instanceof SessionHook);
}
