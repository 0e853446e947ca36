/** Slash commands about the conversation itself: `/clear`, `/new` (a new session, the old one kept) and `/export`. */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Conversation } from "../../model/conversation.js";
import { exportSession, type ExportedSession } from "../../session/export.js";
import { SESSION_FORMAT_VERSION } from "../../session/format.js";
import { awlVersion } from "../../version.js";
import { sessionHookOf } from "../session-history.js";
import type { SlashCommand, SlashContext } from "./slash-command.js";

/** Starts a new conversation; the old one stays saved (`/resume` brings it back) unless the model never answered it. */
function startNew({ runtime }: SlashContext): string {
  const hook = sessionHookOf(runtime);
  const old = hook?.sessionId();
  const dropped = hook?.id !== undefined && old === undefined;
  hook?.startNew();
  runtime.conversation = new Conversation();
  if (old) return `new conversation; the last one is saved as ${old} (/resume ${old} brings it back)`;
  return dropped ? "new conversation; the last one got no answer and is not kept" : "new conversation";
}

export const clearCommand: SlashCommand = {
  name: "clear",
  summary: "clear the screen and start a new conversation (the last one stays saved)",
  run: (_args, context) => {
    // Clear the screen and its scrollback, cursor home: what a user means by clear.
    context.sink.write("\x1b[H\x1b[2J\x1b[3J");
    context.print(startNew(context));
  },
};

export const newCommand: SlashCommand = {
  name: "new",
  summary: "start a new conversation, keeping the screen (the last one stays saved)",
  run: (_args, context) => context.print(startNew(context)),
};

export const exportCommand: SlashCommand = {
  name: "export",
  args: "[FILE]",
  summary: "write this conversation as Markdown to FILE (default awl-ID.md here); .json: as JSON",
  run: (args, { runtime, print }) => {
    const hook = sessionHookOf(runtime);
    let session: ExportedSession;
    let name: string;
    if (hook) {
      const id = hook.id;
      if (!id) return print("nothing to export yet: this conversation has no answer");
      const loaded = hook.store.load(id);
      if (!loaded.ok) return print(`cannot export: ${loaded.error.message}`);
      session = loaded.value;
      name = `awl-${id}`;
    } else {
      // --no-session: nothing is saved, but the conversation is in memory.
      if (runtime.conversation.messages.length === 0) return print("nothing to export yet: this conversation is empty");
      const created = new Date().toISOString();
      const header = { type: "session", version: SESSION_FORMAT_VERSION, id: "unsaved", created, cwd: process.cwd(), provider: runtime.settings.provider.provider, model: runtime.settings.provider.model, awl_version: awlVersion() } as const;
      session = { header, transcript: runtime.conversation.messages, snapshots: new Map() };
      name = `awl-unsaved-${created.slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}`;
    }
    const file = resolve(args.trim() || `${name}.md`);
    const format = file.endsWith(".json") ? "json" : "md";
    try {
      writeFileSync(file, exportSession(session, format));
    } catch (e) {
      return print(`cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    print(`wrote ${file} (${format === "md" ? "Markdown" : "JSON"}, ${session.transcript.length} messages)`);
  },
};
