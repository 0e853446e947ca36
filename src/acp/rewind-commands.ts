/**
 * `/rewind` and `/fork` sent as prompts in `awl acp` (docs/acp.md, "Rewind and fork"): ACP has no rewind method, so
 * they are slash commands, advertised with the session's other commands and answered as agent text. `session/fork`
 * (acp/agent.ts) forks too; this `/fork` goes on in the copy under the same ACP session.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { AgentSession } from "../agent-session/agent-session.js";
import type { RewindMode } from "../agent-session/branching.js";
import { nothingToRestore, restoreLines, rewindPointLabel } from "../ui/output/rewind-text.js";

export const REWIND_COMMANDS: AvailableCommand[] = [
  {
    name: "rewind",
    description: "restore the files and/or the conversation as they were before a prompt (no argument: the prompts, with what changed since each)",
    input: { hint: "N code|conversation|both [overwrite]" },
  },
  { name: "fork", description: "copy this conversation into a new saved session and go on there (the original stays)" },
];

const USAGE = "usage: /rewind (lists the prompts), /rewind N code|conversation|both [overwrite], or /fork";

/** The answer to a prompt that is `/rewind …` or `/fork`, or undefined when the prompt is something else. */
export async function rewindCommandReply(text: string, session: AgentSession): Promise<string | undefined> {
  const match = /^\/(rewind|fork)(?:\s+(.*))?$/s.exec(text.trim());
  if (!match) return undefined;
  const words = (match[2] ?? "").split(/\s+/).filter(Boolean);
  try {
    if (match[1] === "fork") {
      if (words.length > 0) return USAGE;
      const forked = await session.fork();
      return forked.ok ? `Forked: this conversation now goes on as session ${forked.id}; ${forked.from} stays as it was.` : `Cannot fork: ${forked.message}`;
    }
    if (words.length === 0) {
      const points = await session.rewindPoints();
      if (points.length === 0) return "Nothing to rewind to: no prompt has been sent yet.";
      return ["The prompts (/rewind N code|conversation|both):", ...points.map(rewindPointLabel)].join("\n");
    }
    const [n, mode, extra, ...rest] = words;
    if (!/^[1-9]\d*$/.test(n!) || !["code", "conversation", "both"].includes(mode ?? "") || (extra !== undefined && extra !== "overwrite") || rest.length > 0) return USAGE;
    const outcome = await session.rewind({ to: Number(n), mode: mode as RewindMode, overwriteChanged: extra === "overwrite" });
    switch (outcome.status) {
      case "error":
        return `Cannot rewind: ${outcome.message}`;
      case "conflicts":
        return `Nothing was restored: changed outside awl since its last checkpoint: ${outcome.conflicts.join(", ")}. /rewind ${n} ${mode} overwrite restores them too.`;
      default: {
        const lines: string[] = [];
        if (outcome.files) lines.push(...(nothingToRestore(outcome.files) ? [`The files were already as before prompt ${n}.`] : restoreLines(`Restored the files to before prompt ${n}:`, outcome.files)));
        if (mode !== "code")
          lines.push(
            `The conversation is back to before prompt ${n} (a new branch; the old one is kept). This transcript still shows the old one: reopen the session to see it as it now is. The prompt was:`,
            outcome.prompt,
          );
        return lines.join("\n");
      }
    }
  } catch (e) {
    return `Cannot ${match[1]}: ${e instanceof Error ? e.message : String(e)}`;
  }
}
