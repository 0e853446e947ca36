/**
 * The plain shapes of a command line read without Node's `util.parseArgs`, whose first call compiles ≈ 15 KB of
 * Node's own code (≈ 1–2.5 ms of a one-line reply: docs/benchmarks.md, issue 30). Only what it reads exactly as
 * `parseArgs({ args, options, allowPositionals: true, strict: true })` does: `--name`, `--name value`,
 * `--name=value`, `-x`, `-x value` of known options and positionals that do not start with `-`. Anything else (an
 * unknown option, a missing value, `--`, `-`, grouped short options, `-xVALUE`, a separate value that starts with
 * `-`) is undefined, and the caller asks `parseArgs`, which reads it or says what is wrong
 * (test/cli/plain-args.test.ts compares both over many argument lists).
 */

/** An option as `parseArgs` takes it (without `default`, which the fast path does not apply). */
export interface PlainOption {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

/** What `parseArgs` returns for such a command line: `values` without a prototype, as Node makes it. */
export interface PlainArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** `args` read as `parseArgs` would, or undefined when they are not all of the plain shapes. */
export function parsePlainArgs(args: readonly string[], options: Readonly<Record<string, PlainOption>>): PlainArgs | undefined {
  const values: PlainArgs["values"] = Object.create(null) as PlainArgs["values"];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=", 3);
      name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
      if (equals !== -1) inline = arg.slice(equals + 1);
    } else if (arg.length === 2) {
      name = Object.keys(options).find((key) => Object.hasOwn(options[key]!, "short") && options[key]!.short === arg[1]);
    }
    if (name === undefined || name === "" || !Object.hasOwn(options, name)) return undefined;
    const option = options[name]!;
    let value: string | boolean;
    if (option.type === "boolean") {
      if (inline !== undefined) return undefined;
      value = true;
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = args[i + 1];
      if (next === undefined || (next.length > 1 && next.startsWith("-"))) return undefined;
      value = next;
      i++;
    }
    if (option.multiple) ((values[name] ??= []) as (string | boolean)[]).push(value);
    else values[name] = value;
  }
  return { values, positionals };
}
