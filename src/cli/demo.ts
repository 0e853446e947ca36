/**
 * `awl --demo` (the README's main command) with no API key configured: one offline turn played by the
 * replay provider from the bundled script, so a fresh clone shows a real streamed turn without a network.
 */
import { packagePath } from "../util/package-path.js";
import { resolveSettings } from "../config/settings.js";
import type { ConfigError } from "../config/errors.js";
import { formatUserMessage } from "../ui/error-text.js";
import { EXIT } from "./exit-codes.js";
import { writeNotice } from "../ui/output/wrap-text.js";
import { settingsFlags, type CliOptions } from "../runtime/flags.js";
import { runPrintMode } from "./print-mode.js";
import { buildRuntime } from "../runtime/build-runtime.js";

export const DEMO_SCRIPT = packagePath("examples", "replay", "demo.jsonl");
/** The example extensions the demo's tool calls use (echo, word_count). */
export const DEMO_EXTENSIONS = packagePath("examples", "extensions");
export const DEMO_PROMPT = "Hello! What is awl? Show me a tool, and tell me how to use a real model.";

export async function runDemo(options: CliOptions, reason: ConfigError): Promise<number> {
  // The example extensions supply the demo's tools; a replayed demo is not worth saving as a session.
  const cli: CliOptions = {
    ...options,
    flags: { ...options.flags, "extensions-dir": [DEMO_EXTENSIONS, ...(options.flags["extensions-dir"] ?? [])], "no-session": true, continue: false },
  };
  delete cli.flags.resume;
  writeNotice(process.stderr, `awl: ${reason.message}: playing the offline demo (--provider replay --replay ${DEMO_SCRIPT})\n\n`);
  const sources = { env: {}, flags: { ...settingsFlags(cli.flags), provider: "replay", replay: DEMO_SCRIPT } };
  const resolved = resolveSettings(sources);
  if (!resolved.ok) {
    writeNotice(process.stderr, formatUserMessage(resolved.error));
    return EXIT.usage;
  }
  const built = await buildRuntime({ settings: resolved.value, sources, cli, warn: (text) => writeNotice(process.stderr, `awl: ${text}\n`) });
  if (!built.ok) {
    writeNotice(process.stderr, formatUserMessage(built.error));
    return EXIT.usage;
  }
  const prompt = cli.prompt.trim() === "" ? DEMO_PROMPT : cli.prompt;
  if (cli.outputFormat === "text") process.stdout.write(`> ${prompt}\n\n`);
  try {
    const code = await runPrintMode(built.value, cli, prompt);
    writeNotice(process.stderr, `\nawl: that was a replayed demo. To talk to a real model: ${reason.hint}\n`);
    return code;
  } finally {
    await built.value.close();
  }
}
