/** Parsing the `awl` command's arguments and the flags section of its `--help`, from the table of src/runtime/flags.ts. */
import { parseArgs } from "node:util";
import { parsePlainArgs, type PlainOption } from "./plain-args.js";
import type { ConfigResult } from "../config/errors.js";
import { columnRow } from "../ui/output/wrap-text.js";
import { FLAGS, INPUT_FORMATS, OUTPUT_FORMATS, type CliOptions, type FlagSpec, type FlagValues, type InputFormat, type OutputFormat } from "../runtime/flags.js";

/** Parses the arguments of the main command; a bad flag is a value naming it. */
export function parseCliArgs(argv: readonly string[]): ConfigResult<CliOptions> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = flagOptions();
    const args = withPickerResume(argv);
    // Node's parser compiles its own code at its first call: the plain shapes of a command line go without it.
    parsed = parsePlainArgs(args, options) ?? parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    return { ok: false, error: { message: usageMessage(e), hint: "see awl --help" } };
  }
  const flags = parsed.values as FlagValues;
  const format = flags["output-format"] ?? "text";
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    return { ok: false, error: { message: `--output-format expects one of ${OUTPUT_FORMATS.join(", ")}, got "${format}"`, hint: "see awl --help" } };
  }
  const input = flags["input-format"] ?? "text";
  if (!(INPUT_FORMATS as readonly string[]).includes(input)) {
    return { ok: false, error: { message: `--input-format expects one of ${INPUT_FORMATS.join(", ")}, got "${input}"`, hint: "see awl --help" } };
  }
  if (input === "stream-json" && format !== "stream-json") {
    return { ok: false, error: { message: "--input-format stream-json needs --output-format stream-json", hint: "add --output-format stream-json" } };
  }
  return { ok: true, value: { flags, prompt: parsed.positionals.join(" "), outputFormat: format as OutputFormat, inputFormat: input as InputFormat } };
}

/** The main command's flags as `parseArgs` takes them. */
export function flagOptions(): Record<string, PlainOption> {
  return Object.fromEntries(
    Object.entries(FLAGS).map(([name, spec]) => [name, { type: spec.type, ...("short" in spec ? { short: spec.short } : {}), ...("multiple" in spec ? { multiple: spec.multiple } : {}) }]),
  );
}

/**
 * `-r` / `--resume` with no id (last, or before another flag) opens the session picker: it gets the value "".
 * An id is never guessed from a prompt: `awl -r hello` resumes session "hello".
 */
function withPickerResume(argv: readonly string[]): string[] {
  const args = [...argv];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if ((args[i] === "-r" || args[i] === "--resume") && (i + 1 === args.length || args[i + 1]!.startsWith("-"))) args.splice(++i, 0, "");
  }
  return args;
}

/** Node's parseArgs messages, reworded to name the flag plainly. */
function usageMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value`;
  return message.split(".")[0] ?? message;
}

/** The flags section of --help, grouped. */
export function flagsHelp(): string {
  const groups = new Map<string, string[]>();
  for (const [name, spec] of Object.entries(FLAGS) as [string, FlagSpec][]) {
    const left = `${spec.short ? `-${spec.short}, ` : "    "}--${name}${spec.value ? ` ${spec.value}` : ""}`;
    const lines = groups.get(spec.group) ?? [];
    lines.push(columnRow(`  ${left}`, spec.help, 30));
    groups.set(spec.group, lines);
  }
  return [...groups].map(([group, lines]) => `${group}:\n${lines.join("\n")}`).join("\n\n");
}
