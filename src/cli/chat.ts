/**
 * The main command, `awl [flags] [prompt]`: interactive with a terminal, otherwise one print-mode turn.
 * Order: flags, then stdin, then configuration, then the runtime; each failure is a message and an exit code.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ConfigError } from "../config/errors.js";
import { formatUserMessage } from "../ui/error-text.js";
import { tty } from "../util/lazy-builtin.js";
import { EXIT } from "./exit-codes.js";
import { parseCliArgs } from "./options.js";
import { settingsFlags, type CliOptions } from "../runtime/flags.js";
import { composePrompt, readPipedStdin } from "./stdin.js";
import { writeNotice } from "../ui/output/wrap-text.js";
import type { InteractiveScreen } from "./interactive/screen.js";

const stdout = process.stdout;
const stderr = process.stderr;
/** The interactive mode's prompt once it is drawn: awl's warnings go above it from then on. */
let screen: InteractiveScreen | undefined;

export async function runChat(argv: readonly string[]): Promise<number> {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    writeNotice(stderr, formatUserMessage(parsed.error));
    return EXIT.usage;
  }
  const cli = parsed.value;
  if (cli.flags.help) {
    const { helpText } = await import("./help.js");
    writeNotice(stdout, helpText());
    return EXIT.ok;
  }
  if (cli.flags.version) {
    const { versionText } = await import("../version.js");
    stdout.write(`${versionText()}\n`);
    return EXIT.ok;
  }

  // Interactive needs a terminal on both ends; without one awl never prompts. Headless, no Lua worker starts here:
  // one starts once a tool call is likely (LuaToolSet.prewarm), with the environment its extensions get (issue 30).
  const interactive = !cli.flags.print && cli.outputFormat === "text" && tty().isatty(0) && tty().isatty(1);
  return await chat(cli, interactive);
}

/** The main command once its flags are read: stdin, configuration, the runtime, then the mode's own loop. */
async function chat(cli: CliOptions, interactive: boolean): Promise<number> {
  // With stream-json input, stdin holds the conversation's prompts, read line by line as they come.
  const streamed = cli.inputFormat === "stream-json";
  const prompt = interactive || streamed ? cli.prompt : composePrompt(cli.prompt, await readPipedStdin());
  if (!interactive && !streamed && prompt.trim() === "" && !cli.flags.demo) {
    return await fail(cli, { message: "nothing to send", hint: 'pass a prompt (awl -p "question") or pipe text into awl -p' }, EXIT.usage);
  }

  // Loaded only now, so --help and --version stay cheap.
  const [{ loadSettings }, { setupRunPermissions }] = await Promise.all([import("../config/index.js"), import("../runtime/run-permissions.js")]);
  // The permissions first: they read the config files and settle the folder's trust (asked here with a
  // terminal), and a trusted folder's file may set keys an untrusted one may not (docs/config.md).
  const unconfigured = async (error: ConfigError): Promise<number> => (cli.flags.demo ? (await import("./demo.js")).runDemo(cli, error) : fail(cli, error, EXIT.usage));
  const permissions = await setupRunPermissions(cli, { interactive, cwd: process.cwd(), warn });
  if (!permissions.ok) return unconfigured(permissions.error);
  // Said before anything else can stop the run: an unknown key is news even when a later step fails.
  for (const warning of permissions.value.files.warnings) warn(warning);
  const loaded = await loadSettings(process.env, settingsFlags(cli.flags), { config: permissions.value.files });
  if (!loaded.ok) return unconfigured(loaded.error);
  // The prompt is drawn now and takes keys while the tools, skills, hooks and provider open (interactive/screen.ts),
  // unless something may still be asked or shown first: a project `.mcp.json` to approve, a session to resume.
  if (interactive && promptFirst(cli)) {
    const { engine } = permissions.value;
    screen = new (await import("./interactive/screen.js")).InteractiveScreen(loaded.value.settings.provider, () => engine.mode);
    screen.open();
  }

  // The tools before the rest of awl's modules: without a matching registration cache, their Lua worker boots
  // and loads the extensions while those load (the first request waits for the tools).
  const options = { settings: loaded.value.settings, sources: loaded.value.sources, config: loaded.value.config, cli, warn, permissions: permissions.value };
  const tools = await (await import("../runtime/chat-tools.js")).openChatTools(options, { interactive });
  if (!tools.ok) return await fail(cli, tools.error, EXIT.usage);
  // The interactive mode's modules import the sessions' (its history, /resume) even with --no-session: they load
  // now, beside the runtime's, rather than one after the other once the runtime is built.
  if (interactive) void import("../runtime/session-hook.js");
  const [{ buildRuntime }, { runPrintMode }] = await Promise.all([import("../runtime/build-runtime.js"), import("./print-mode.js")]);
  // Print mode's text for a terminal is laid out by display width: its measure loads while the runtime is built.
  // (The interactive mode loads it once its prompt is drawn.)
  if (!interactive && cli.outputFormat === "text" && (stdout.isTTY || stderr.isTTY)) void import("../ui/output/width.js").then((w) => w.loadDisplayWidth());
  if (!interactive && cli.outputFormat === "text" && stdout.isTTY) void import("../ui/markdown/load.js").then((m) => m.loadMarkdown());
  const built = await buildRuntime({ ...options, openedTools: tools.value });
  if (!built.ok) return await fail(cli, built.error, EXIT.usage);
  const runtime = built.value;
  try {
    if (interactive) return await (await import("./interactive/repl.js")).runInteractive(runtime, prompt, screen);
    if (streamed) return await (await import("./stream-json-mode.js")).runStreamJsonMode(runtime, prompt);
    return await runPrintMode(runtime, cli, prompt);
  } finally {
    await runtime.close();
  }
}

/** Whether the interactive prompt can be drawn before the runtime is built: nothing is asked, shown or sent before it. */
function promptFirst(cli: CliOptions): boolean {
  return cli.prompt.trim() === "" && !cli.flags.continue && cli.flags.resume === undefined && !existsSync(join(process.cwd(), ".mcp.json"));
}

function warn(text: string): void {
  if (screen) screen.notice(`awl: ${text}`);
  else writeNotice(stderr, `awl: ${text}\n`);
}

/** Reports a failure before any turn: a message on stderr, and in the JSON modes the result object on stdout. */
async function fail(cli: CliOptions, error: ConfigError, code: number): Promise<number> {
  // A prompt drawn early is left as it is, and the terminal given back, before the message.
  screen?.close();
  screen = undefined;
  writeNotice(stderr, formatUserMessage(error));
  if (cli.outputFormat !== "text") {
    const [{ failureJSON, jsonLine }, { providerError }] = await Promise.all([import("./output/json-output.js"), import("../providers/errors.js")]);
    stdout.write(jsonLine(failureJSON(providerError("config", `${error.message}; ${error.hint}`))));
  }
  return code;
}
