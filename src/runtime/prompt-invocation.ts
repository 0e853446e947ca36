/**
 * What a prompt that names a command or a skill becomes, the same on every surface (the interactive prompt,
 * `awl -p`, stream-json input, ACP): `/name ARGS` runs a Markdown prompt command (docs/commands.md), loads a
 * skill (docs/skills.md) or runs an extension's `awl.register_command` handler, and `$skill-name` anywhere in a
 * prompt adds that skill's instructions. awl's own interactive commands (`/help`, ...) are matched before this.
 * A prompt naming nothing known is sent as typed (`/usr/bin/env` stays a path).
 */
import type { PromptContent } from "../agent-session/agent-session.js";
import type { ContentBlock, ImageBlock } from "../model/blocks.js";
import { expandCommand } from "../prompt-commands/expand-command.js";
import { isRefusal } from "../permissions/tool-set.js";
import { runSlashCommand } from "../extensions/run-slash-command.js";
import type { Runtime } from "./runtime.js";
import { attachMentionedFiles } from "./file-mentions.js";

export type Invocation =
  /**
   * Send this (the prompt as typed when it names nothing); `named` is the command or skill it named, `notes`
   * say what was loaded, attached or left out.
   */
  | { kind: "send"; content: PromptContent; notes: string[]; named?: string; model?: string }
  /** An extension's command printed this; nothing is sent. */
  | { kind: "printed"; text: string }
  /** Nothing is sent, for this reason (a denied `` !`…` ``, a broken file, a failed handler). */
  | { kind: "refused"; message: string };

type Reach = Pick<Runtime, "skills" | "promptCommands" | "hosts" | "agent" | "providerFor">;

/** Whether `content` may name a command or a skill (else {@link invokePrompt} sends it as it is). */
export function mayInvoke(content: PromptContent, runtime: Pick<Runtime, "skills">): boolean {
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  const skills = (runtime.skills?.definitions().length ?? 0) > 0;
  return blocks.some((b, i) => b.type === "text" && ((i === 0 && b.text.trimStart().startsWith("/")) || (skills && b.text.includes("$"))));
}

/** The prompt `content` as it goes to the model, or why it does not. */
export async function invokePrompt(content: PromptContent, runtime: Reach, cwd: string, signal: AbortSignal): Promise<Invocation> {
  const blocks: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : [...content];
  const first = blocks[0];
  const named = first?.type === "text" ? /^\s*\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(first.text) : null;
  if (named) {
    const done = await invokeNamed(named[1]!, named[2] ?? "", runtime, cwd, signal);
    if (done) {
      if (done.kind === "send") done.named = named[1]!.toLowerCase();
      if (done.kind !== "send" || blocks.length === 1) return done;
      const head: ContentBlock[] = typeof done.content === "string" ? [{ type: "text", text: done.content }] : done.content;
      return { ...done, content: [...head, ...blocks.slice(1)] };
    }
  }
  return mentionedSkills(blocks, content, runtime);
}

/** `/name ARGS`: a prompt command, else a skill, else an extension's command; undefined when none has the name. */
async function invokeNamed(name: string, args: string, runtime: Reach, cwd: string, signal: AbortSignal): Promise<Invocation | undefined> {
  const command = runtime.promptCommands?.find(name);
  if (command) {
    const file = await runtime.promptCommands!.file(command);
    if (file instanceof Error) return { kind: "refused", message: `/${command.name}: ${file.message}` };
    // A `model` the session cannot use refuses the command before any `` !`…` `` of it runs.
    const model = file.model === undefined || file.model === runtime.agent.provider.model ? undefined : await runtime.providerFor(file.model);
    if (model && !model.ok) return { kind: "refused", message: `/${command.name} was not sent: ${command.file} names the model "${file.model}": ${model.error.message}` };
    const expanded = await expandCommand(file.body, args, { runShell: (text) => runShell(text, runtime, signal) });
    if (!expanded.ok) return { kind: "refused", message: `/${command.name} was not sent: ${expanded.message}` };
    const sent = await withFiles(expanded.text, expanded.files, [], cwd);
    if (model && sent.kind === "send") {
      sent.model = file.model!;
      sent.notes.push(`this turn runs on ${file.model}`);
    }
    return sent;
  }
  const skill = runtime.skills?.find(name.toLowerCase());
  if (skill) {
    const body = await runtime.skills!.body(skill);
    if (!body.ok) return { kind: "refused", message: `/${skill.name}: ${body.message}` };
    return { kind: "send", content: args.trim() === "" ? body.text : `${body.text}\n\n${args.trim()}`, notes: [`loaded the skill ${skill.name}`] };
  }
  const lua = runtime.hosts.lua;
  if (!lua) return undefined;
  await lua.ready();
  const handler = lua.commands().find((c) => c.name === name.toLowerCase());
  if (!handler) return undefined;
  const done = await runSlashCommand(lua, handler, args, signal);
  if (done.outcome !== "ok") return { kind: "refused", message: done.outcome === "error" ? `/${handler.name} failed: ${done.text}` : done.text };
  if (!done.prompt) return { kind: "printed", text: done.text };
  const images: ImageBlock[] = done.prompt.images.map((image) => ({ type: "image", ...image }));
  const sent = await withFiles(done.prompt.text, done.prompt.files, images, cwd);
  if (sent.kind === "send" && done.text.trim() !== "") sent.notes.unshift(done.text.trim());
  return sent;
}

/** The prompt with the named files attached after it (as `@path` in a prompt attaches them). */
async function withFiles(text: string, files: readonly string[], images: ImageBlock[], cwd: string): Promise<Invocation> {
  const attached = files.length === 0 ? undefined : attachMentionedFiles(files.map((f) => `@${f.replace(/ /g, "\\ ")}`).join(" "), cwd);
  const notes = [...(attached?.attached.length ? [`attached ${attached.attached.join(", ")}`] : []), ...(attached?.notes ?? [])];
  const fileText = attached ? attached.text.replace(/^[\s\S]*?(?=<file |$)/, "") : "";
  const prompt = fileText === "" ? text : `${text}\n\n${fileText}`;
  const allImages = [...images, ...(attached?.images ?? [])];
  return { kind: "send", content: allImages.length === 0 ? prompt : [{ type: "text", text: prompt }, ...allImages], notes };
}

/** `` !`command` `` of a prompt command: through the bash tool, so its permission check decides (and asks). */
async function runShell(command: string, runtime: Reach, signal: AbortSignal): Promise<{ ok: true; output: string } | { ok: false; message: string }> {
  const tools = runtime.agent.tools;
  if (!tools?.definitions().some((t) => t.name === "bash")) return { ok: false, message: "the bash tool is not available here (plan mode, --no-std-tools or a rule denying it)" };
  const outcome = await tools.execute({ id: `command-${Date.now().toString(36)}`, name: "bash", input: JSON.stringify({ command }) }, signal);
  // The bash tool's last line says the exit code; 0 goes without saying in a prompt.
  if (outcome.status === "result" && !isRefusal(outcome)) return { ok: true, output: outcome.content.replace(/\n?\[exit code 0\]\s*$/, "") };
  if (outcome.status === "result") return { ok: false, message: outcome.content };
  return { ok: false, message: outcome.status === "crash" ? outcome.message : `it was ${outcome.status === "timeout" ? "stopped (timeout)" : "cancelled"}` };
}

/** `$skill-name` in the prompt's text: each named skill's instructions follow the prompt. */
async function mentionedSkills(blocks: ContentBlock[], content: PromptContent, runtime: Reach): Promise<Invocation> {
  const skills = runtime.skills;
  if (!skills) return { kind: "send", content, notes: [] };
  const names = new Set<string>();
  for (const block of blocks) {
    if (block.type !== "text") continue;
    for (const match of block.text.matchAll(/(^|[\s(])\$([a-z0-9][a-z0-9-]*)(?=$|[\s.,;:!?)])/g)) if (skills.find(match[2]!)) names.add(match[2]!);
  }
  if (names.size === 0) return { kind: "send", content, notes: [] };
  const bodies: string[] = [];
  const notes: string[] = [];
  for (const name of names) {
    const body = await skills.body(skills.find(name)!);
    if (body.ok) {
      bodies.push(body.text);
      notes.push(`loaded the skill ${name}`);
    } else notes.push(body.message);
  }
  return { kind: "send", content: [...blocks, ...bodies.map((text): ContentBlock => ({ type: "text", text }))], notes };
}
