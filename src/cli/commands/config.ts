/** `awl config [flags]`: the settings awl would use, where they came from, never the key itself. */
import { configFilePath, loadSettings } from "../../config/index.js";
import { formatUserMessage } from "../error-text.js";
import { EXIT } from "../exit-codes.js";
import { parseCliArgs, settingsFlags, type FlagValues } from "../options.js";
import { findInstructionFiles } from "../../prompt/instructions.js";
import { systemPromptChoice } from "../system-prompt-option.js";
import type { ConfigFile } from "../../config/config-file.js";

export async function run(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(formatUserMessage(parsed.error));
    return EXIT.usage;
  }
  const path = configFilePath(process.env);
  const loaded = loadSettings(process.env, settingsFlags(parsed.value.flags));
  if (!loaded.ok) {
    process.stdout.write(`config file: ${path}\n`);
    process.stderr.write(formatUserMessage(loaded.error));
    return EXIT.usage;
  }
  const { settings, file } = loaded.value;
  const p = settings.provider;
  const lines = [
    `config file: ${path}${file ? "" : " (none)"}`,
    `provider: ${p.provider}`,
    `model: ${p.model} (from ${settings.modelSource})`,
    ...(p.provider === "replay" ? [`replay script: ${p.replayFile}`] : [`base URL: ${p.baseUrl}`, `API key: ${p.apiKey ? `set (from ${settings.keySource})` : "not set"}`]),
    `max retries: ${p.maxRetries}`,
    `stall timeout: ${p.stallTimeoutMs} ms`,
    `first-byte timeout: ${p.firstByteTimeoutMs} ms`,
    `max steps: ${settings.maxSteps}`,
    `max tokens: ${p.maxTokens ?? "provider default"}`,
    `thinking: ${p.thinking === undefined ? "the model's default (nothing sent)" : typeof p.thinking === "number" ? `budget of ${p.thinking} tokens` : p.thinking}`,
    `interleaved thinking: ${p.interleavedThinking === false ? "off" : "on (budget thinking with tools)"}`,
    ...promptLines(parsed.value.flags, file),
  ];
  process.stdout.write(lines.join("\n") + "\n");
  for (const warning of file?.warnings ?? []) process.stderr.write(`awl: ${warning}\n`);
  return EXIT.ok;
}

/** Which system prompt awl sends and which instruction files it holds (AGENTS.md, CLAUDE.md). */
function promptLines(flags: FlagValues, file: ConfigFile | undefined): string[] {
  const choice = systemPromptChoice(flags, file ?? null, process.cwd());
  const files = findInstructionFiles(process.cwd(), process.env);
  const how = !choice.ok
    ? `error: ${choice.error.message}`
    : [choice.value.replace !== undefined ? "replaced (--system-prompt or system_prompt)" : "awl's default", ...(choice.value.append !== undefined ? ["with appended text"] : [])].join(", ");
  return [
    `system prompt: ${how}`,
    files.length === 0
      ? "instruction files: none (AGENTS.md, or CLAUDE.md, from the repository root down to here, and in ~/.config/awl/)"
      : `instruction files (in prompt order):\n${files.map((f) => `  ${f.path}${f.truncated ? " (cut at 32 KB)" : ""}`).join("\n")}`,
  ];
}
