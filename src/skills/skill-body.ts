/**
 * A skill's body as it goes into the conversation when the model or the user invokes it: the instructions
 * after the front matter, wrapped with the skill's name and folder (its `scripts/`, `references/` and `assets/`
 * are read and run from there with the ordinary tools, under the ordinary permissions). A body longer than
 * {@link MAX_SKILL_BODY} bytes is cut, with a note saying where the rest is.
 */
import { statSync } from "node:fs";
import { FRONT_MATTER_BYTES, readHead, type SkillEntry } from "./discover-skills.js";

/** The most of a body sent. */
export const MAX_SKILL_BODY = 64 * 1024;

/** What {@link skillBodyText} reads of a `SKILL.md`: its head and its size (a copy kept through a bad save). */
export interface SkillFileText {
  text: string;
  size: number;
}

/** The part of `skill`'s file a body is made of, read now. Throws when it cannot be read. */
export function readSkillFile(skill: SkillEntry): SkillFileText {
  return { size: statSync(skill.file).size, text: readHead(skill.file, FRONT_MATTER_BYTES + MAX_SKILL_BODY + 4) };
}

/**
 * The text for the conversation, or an error naming the file (it changed or went away since discovery). `kept`: the
 * file as it was when it last parsed, used instead of the file (a save that broke it keeps the previous version).
 */
export async function skillBodyText(skill: SkillEntry, kept?: SkillFileText): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  let text: string;
  let size: number;
  if (kept) ({ text, size } = kept);
  else try {
    // Never more than the front matter and the part of the body that is sent, however big the file.
    ({ text, size } = readSkillFile(skill));
  } catch (error) {
    return { ok: false, message: `cannot read ${skill.file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
  const { FrontMatterError, parseFrontMatter } = await import("../util/front-matter.js");
  let body: string;
  try {
    body = parseFrontMatter(text, skill.file).body;
  } catch (error) {
    if (error instanceof FrontMatterError) return { ok: false, message: error.message };
    throw error;
  }
  const bytes = Buffer.from(body.trim());
  const cut = bytes.length > MAX_SKILL_BODY || size > Buffer.byteLength(text);
  const shown = cut ? bytes.subarray(0, MAX_SKILL_BODY).toString("utf8").replace(/\uFFFD+$/, "") : bytes.toString("utf8");
  const note = cut
    ? `\n[awl: the skill is cut here: its SKILL.md is ${kb(size)} and awl sends the first ${kb(MAX_SKILL_BODY)} of its instructions; read the rest from ${skill.file} if you need it]`
    : "";
  return {
    ok: true,
    text: `<skill name="${skill.name}" folder="${skill.dir}">\n${shown}${note}\n</skill>\nThe skill's files (scripts/, references/, assets/) are in ${skill.dir}: read and run them there by path with your tools.`,
  };
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;
}
