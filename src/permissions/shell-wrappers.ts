/**
 * Commands that run their arguments as a command (docs/permissions.md, "Wrappers"): `env rm x` runs `rm x`,
 * `bash -c 'rm x'` and `eval 'rm x'` run the text `rm x`. Deny and ask rules see the command inside as well as
 * the wrapper. A wrapper whose options awl does not know, or whose inner command is only known when it runs
 * (`eval "$x"`, `sh` reading its script from stdin), is unresolved.
 */
import type { Word } from "./shell-words.js";

/** What a wrapper runs. */
export type Inner =
  | { kind: "command"; words: Word[] }
  | { kind: "script"; source: string }
  | { kind: "unresolved"; reason: string };

/** How a wrapper's own options read: single-letter flags, letters taking a value, long options (true: takes a value). */
interface Options {
  flags?: string;
  valued?: string;
  long?: Record<string, boolean>;
  /** Options that make it run nothing (`command -v`, `sudo -l`). */
  inert?: string;
  /** Positional words before the command (`timeout DURATION`). */
  skip?: number;
}

const OPEN: Word = { text: "", open: true };

/** Wrappers that take options, then a command: the table of their options. */
const PREFIX: Record<string, Options> = {
  nohup: {},
  builtin: {},
  coproc: {},
  time: { flags: "pavq", valued: "fo", long: { "--portability": false, "--verbose": false, "--quiet": false, "--append": false, "--format": true, "--output": true } },
  nice: { valued: "n", long: { "--adjustment": true } },
  timeout: { flags: "v", valued: "sk", long: { "--foreground": false, "--preserve-status": false, "--verbose": false, "--signal": true, "--kill-after": true }, skip: 1 },
  command: { flags: "p", inert: "vV" },
  exec: { flags: "cl", valued: "a" },
  setsid: { flags: "cfw", long: { "--ctty": false, "--fork": false, "--wait": false } },
  stdbuf: { valued: "ioe", long: { "--input": true, "--output": true, "--error": true } },
  doas: { flags: "ns", valued: "uC", inert: "L" },
  sudo: {
    flags: "AbEHknPSB",
    valued: "ugCDhprtTU",
    inert: "lvKe",
    long: { "--askpass": false, "--background": false, "--preserve-env": false, "--set-home": false, "--non-interactive": false, "--stdin": false, "--user": true, "--group": true, "--chdir": true, "--close-from": true, "--prompt": true, "--host": true, "--role": true, "--type": true, "--command-timeout": true, "--other-user": true },
  },
  busybox: {},
};

/** Script files that are a stream made as the command runs: stdin, a pipe or process substitution's fd. */
const STREAM = /^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/[^/]+\/fd\/\d+)$/;

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);

/** The last part of a path: `/usr/bin/env` is `env`. */
export function commandName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** What `words` (a simple command, assignments removed, its name known) runs besides itself: nothing for most. */
export function innerCommands(words: readonly Word[]): Inner[] {
  const name = commandName(words[0]!.text);
  const args = words.slice(1);
  if (name in PREFIX) return prefixed(name, PREFIX[name]!, args);
  if (SHELLS.has(name)) return shell(name, args);
  switch (name) {
    case "env":
      return env(args);
    case "xargs":
      return xargs(args);
    case "find":
      return find(args);
    case "eval":
      return args.length === 0 ? [] : [script(args, "eval")];
    case "source":
    case ".":
      // A script file is not read (docs/permissions.md, "Scripts"): what it runs is unknown.
      return args.length === 0 ? [] : [unresolved(name, SCRIPT_FILE)];
    case "watch":
      return watch(args);
    case "flock":
      return flock(args);
    case "ssh":
      return ssh(args);
    case "parallel":
      return parallel(args);
    case "git":
      return git(args);
    case "trap":
      return args.length >= 2 && !args[0]!.text.startsWith("-") ? [script([args[0]!], "trap")] : args[0]?.open ? [unresolved("trap")] : [];
    case "alias":
      return args.flatMap((arg): Inner[] => {
        const eq = arg.text.indexOf("=");
        if (eq < 0) return arg.open ? [unresolved("alias")] : [];
        return [arg.open ? unresolved("alias") : { kind: "script", source: arg.text.slice(eq + 1) }];
      });
  }
  return [];
}

/** Why a script run by path (`bash x.sh`, `source x.sh`) is unresolved: awl does not read files to decide. */
const SCRIPT_FILE = "it runs a script file, whose commands awl does not read";

/**
 * Variables that make a program run a command (a value is a script: `GIT_SSH_COMMAND='rm -rf ~' git fetch`), or
 * load code (`LD_PRELOAD`: unknown), wherever they are set: before a command, through `env`, `export`.
 */
const COMMAND_VARIABLES = new Set(["GIT_SSH_COMMAND", "GIT_SSH", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "SSH_ASKPASS", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND", "RSYNC_RSH", "CVS_RSH", "SUDO_ASKPASS"]);
const LOADER_VARIABLES = new Set(["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PERL5OPT", "PYTHONSTARTUP", "NODE_OPTIONS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_DIR", "BASH_FUNC"]);

/** What `NAME=value` words (before a command, `env`'s, `export`'s) make a program run. */
export function assignedCommands(words: readonly Word[]): Inner[] {
  const out: Inner[] = [];
  for (const word of words) {
    const eq = word.text.indexOf("=");
    if (eq <= 0) continue;
    const name = word.text.slice(0, eq).replace(/\+$/, "");
    if (COMMAND_VARIABLES.has(name)) out.push(word.open ? unresolved(name, "the command it names is known only when it runs") : { kind: "script", source: word.text.slice(eq + 1) });
    else if (LOADER_VARIABLES.has(name) || name.startsWith("GIT_CONFIG_") || name.startsWith("BASH_FUNC_")) out.push(unresolved(name, "the variable makes programs load or run code awl does not read"));
  }
  return out;
}

function unresolved(wrapper: string, why = "its arguments are known only when it runs"): Inner {
  return { kind: "unresolved", reason: `"${wrapper}" runs a command that cannot be read before it runs (${why})` };
}

/** Arguments joined as bash joins `eval`'s: one script. */
function script(args: readonly Word[], wrapper: string): Inner {
  if (args.some((a) => a.open)) return unresolved(wrapper);
  return { kind: "script", source: args.map((a) => a.text).join(" ") };
}

/**
 * Reads `args` as the options of `name`, then the command; the index of the command's first word (args.length:
 * none), or an Inner when that settles it.
 */
function skipOptions(name: string, options: Options, args: readonly Word[]): number | Inner[] {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.open) return [unresolved(name)];
    const t = arg.text;
    if (t === "--") return i + 1;
    if (!t.startsWith("-") || t === "-") break;
    if (name === "nice" && /^-\d+$/.test(t)) continue;
    if (t.startsWith("--")) {
      const [key, value] = t.split(/=(.*)/s);
      const takes = options.long?.[key!];
      if (takes === undefined) return [unresolved(name, `it has an option awl does not know: ${t}`)];
      if (takes && value === undefined) i++;
      continue;
    }
    for (let j = 1; j < t.length; j++) {
      const letter = t[j]!;
      if (options.inert?.includes(letter)) return [];
      if (options.flags?.includes(letter)) continue;
      if (options.valued?.includes(letter)) {
        if (j === t.length - 1) i++;
        break;
      }
      return [unresolved(name, `it has an option awl does not know: -${letter}`)];
    }
  }
  return Math.min(i + (options.skip ?? 0), args.length);
}

function prefixed(name: string, options: Options, args: readonly Word[]): Inner[] {
  const at = skipOptions(name, options, args);
  if (typeof at !== "number") return at;
  if (args.slice(0, at).some((a) => a.open)) return [unresolved(name)];
  if (name === "sudo" && args.slice(0, at).some((a) => /^-[a-zA-Z]*[si]/.test(a.text) && !a.text.startsWith("--"))) {
    // `sudo -s CMD` / `sudo -i CMD` run CMD through a shell; without CMD the shell reads stdin.
    return at < args.length ? [script(args.slice(at), name)] : [unresolved(name, "a shell reading its script from stdin")];
  }
  return at < args.length ? [{ kind: "command", words: args.slice(at) }] : [];
}

/** `env [options] [NAME=value]... command`; `-S` splits a string into the command. */
function env(args: readonly Word[]): Inner[] {
  let i = 0;
  const split: Inner[] = [];
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.open) return [unresolved("env")];
    const t = arg.text;
    if (t === "--") {
      i++;
      break;
    }
    if (t === "-" || /^-[i0v]+$/.test(t) || ["--ignore-environment", "--null", "--debug"].includes(t)) continue;
    if (/^-[i0v]*[uC]$/.test(t) || t === "--unset" || t === "--chdir") {
      i++;
      continue;
    }
    if (/^-[i0v]*[uC]./.test(t) || /^--(?:unset|chdir)=/.test(t)) continue;
    if (/^-[i0v]*S/.test(t) || t.startsWith("--split-string")) {
      const inline = /^-[i0v]*S(.+)$/s.exec(t)?.[1] ?? /^--split-string=(.*)$/s.exec(t)?.[1];
      const value = inline !== undefined ? { text: inline, open: false } : args[++i];
      if (!value || value.open) return [unresolved("env")];
      split.push({ kind: "script", source: [value.text, ...args.slice(i + 1).map((a) => a.text)].join(" ") });
      return args.slice(i + 1).some((a) => a.open) ? [unresolved("env")] : split;
    }
    if (t.startsWith("-")) return [unresolved("env", `it has an option awl does not know: ${t}`)];
    if (/^[^=]+=/s.test(t)) continue;
    break;
  }
  const assigned = assignedCommands(args.slice(0, i));
  return i < args.length ? [...assigned, { kind: "command", words: args.slice(i) }] : assigned;
}

/** `xargs [options] [command [args]]`: the command gets more arguments from stdin; `echo` when none is named. */
function xargs(args: readonly Word[]): Inner[] {
  const options: Options = {
    flags: "0rtpxo",
    valued: "adEIsLnP",
    long: { "--null": false, "--no-run-if-empty": false, "--verbose": false, "--interactive": false, "--exit": false, "--open-tty": false, "--show-limits": false, "--arg-file": true, "--delimiter": true, "--eof": true, "--replace": false, "--max-lines": true, "--max-args": true, "--max-procs": true, "--max-chars": true, "--process-slot-var": true },
  };
  // -e, -i, -l take an optional value glued to them: drop them first (-i and --replace also name the replace-string).
  let replace: string | undefined;
  const kept: Word[] = [];
  let ended = false;
  for (const arg of args) {
    const t = arg.text;
    if (!ended && !arg.open && /^-[eil]/.test(t)) {
      if (t.startsWith("-i")) replace = t.slice(2) || "{}";
      continue;
    }
    if (!ended && !arg.open && /^--replace(?:=|$)/.test(t)) {
      replace = t.slice("--replace=".length) || "{}";
      continue;
    }
    if (!ended && !arg.open && !t.startsWith("-")) ended = true;
    kept.push(arg);
  }
  const at = skipOptions("xargs", options, kept);
  if (typeof at !== "number") return at;
  for (let i = 0; i < at; i++) {
    const m = /^-[0rtpxo]*I(.*)$/s.exec(kept[i]!.text);
    if (m) replace = m[1] || kept[i + 1]?.text;
  }
  const words = at < kept.length ? kept.slice(at) : [{ text: "echo", open: false }];
  const filled = replace === undefined ? [...words, OPEN] : words.map((w) => (w.text.includes(replace!) ? { text: w.text.slice(0, w.text.indexOf(replace!)), open: true } : w));
  return [{ kind: "command", words: filled }];
}

/** find's tests that take a value: an open word after one is that value. */
const FIND_VALUED = new Set(["-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex", "-type", "-newer", "-user", "-group", "-perm", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-maxdepth", "-mindepth"]);

/** `find … -exec CMD {} ;` (and `-execdir`, `-ok`, `-okdir`): each CMD, `{}` standing for a path. */
function find(args: readonly Word[]): Inner[] {
  const inner: Inner[] = [];
  for (let i = 0; i < args.length; i++) {
    // An open word could itself be `-exec` (unless it is a test's value), when something after it could end one.
    if (args[i]!.open && !FIND_VALUED.has(args[i - 1]?.text ?? "") && args.slice(i + 1).some((a) => a.open || a.text === ";" || a.text === "+")) return [unresolved("find")];
    // -delete removes what it finds, as `rm` would: an rm rule holds for it.
    if (args[i]!.text === "-delete") inner.push({ kind: "command", words: [{ text: "rm", open: false }, OPEN] });
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i]!.text)) continue;
    const words: Word[] = [];
    for (i++; i < args.length && !(args[i]!.text === ";" || (args[i]!.text === "+" && (args[i - 1]!.open || args[i - 1]!.text.endsWith("{}")))); i++) {
      const w = args[i]!;
      words.push(w.text.includes("{}") ? { text: w.text.slice(0, w.text.indexOf("{}")), open: true } : w);
    }
    if (words.length > 0) inner.push({ kind: "command", words });
  }
  return inner;
}

/** `bash [options] -c SCRIPT`, `bash [options]` (reads stdin), `bash FILE` (runs a file: not seen into). */
function shell(name: string, args: readonly Word[]): Inner[] {
  let command = false;
  let stdin = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.open) return [unresolved(name)];
    const t = arg.text;
    if (t === "--" || t === "-") {
      if (command) return args[i + 1] ? [script([args[i + 1]!], name)] : [unresolved(name)];
      return args[i + 1] ? [] : [unresolved(name, "a shell reading its script from stdin")];
    }
    if (t === "--help" || t === "--version") return [];
    if (t === "--rcfile" || t === "--init-file") {
      i++;
      continue;
    }
    if (t.startsWith("--")) continue;
    if (/^[-+]/.test(t)) {
      if (t.slice(1).includes("c")) command = true;
      if (t.slice(1).includes("s")) stdin = true;
      if (/[oO]$/.test(t)) i++;
      continue;
    }
    if (command) return [script([arg], name)];
    if (STREAM.test(t)) return [unresolved(name, "it reads a script made only when it runs")];
    return stdin ? [unresolved(name, "a shell reading its script from stdin")] : [unresolved(name, SCRIPT_FILE)];
  }
  return [unresolved(name, command ? "-c without a script" : "a shell reading its script from stdin")];
}

/** `watch [options] CMD ARGS...`: runs `sh -c "CMD ARGS"` again and again (`-x`: the words as a command). */
function watch(args: readonly Word[]): Inner[] {
  const options: Options = { flags: "bcdegtpwrx", valued: "nq", long: { "--beep": false, "--color": false, "--differences": false, "--errexit": false, "--chgexit": false, "--no-title": false, "--precise": false, "--no-wrap": false, "--exec": false, "--interval": true, "--equexit": true } };
  const at = skipOptions("watch", options, args);
  if (typeof at !== "number") return at;
  if (at >= args.length) return [];
  const exec = args.slice(0, at).some((a) => a.text === "--exec" || /^-[a-z]*x/.test(a.text));
  return exec ? [{ kind: "command", words: args.slice(at) }] : [script(args.slice(at), "watch")];
}

/** `flock [options] FILE CMD ARGS...` or `flock [options] FILE -c SCRIPT` (or `flock FD`: runs nothing). */
function flock(args: readonly Word[]): Inner[] {
  const options: Options = { flags: "sxunoFe", valued: "wEc", long: { "--shared": false, "--exclusive": false, "--unlock": false, "--nonblock": false, "--close": false, "--no-fork": false, "--verbose": false, "--timeout": true, "--conflict-exit-code": true, "--command": true } };
  const at = skipOptions("flock", options, args);
  if (typeof at !== "number") return at;
  const rest = args.slice(at + 1);
  const c = rest.findIndex((a) => a.text === "-c" || a.text === "--command");
  if (c >= 0) return rest[c + 1] ? [script([rest[c + 1]!], "flock")] : [unresolved("flock")];
  const before = args.slice(0, at).findIndex((a) => /^-[a-z]*c$/.test(a.text) || a.text === "--command");
  if (before >= 0) return args[before + 1] ? [script([args[before + 1]!], "flock")] : [unresolved("flock")];
  return rest.length > 0 ? [{ kind: "command", words: rest }] : [];
}

/** `ssh [options] HOST CMD ARGS...`: the remote command, read as the script the remote shell runs. */
function ssh(args: readonly Word[]): Inner[] {
  const options: Options = { flags: "46AaCfGgKkMNnqsTtVvXxYy", valued: "BbcDEeFIiJLlmOoPpQRSWw" };
  const at = skipOptions("ssh", options, args);
  if (typeof at !== "number") return at;
  const remote = args.slice(at + 1);
  return remote.length > 0 ? [script(remote, "ssh")] : [];
}

/**
 * GNU `parallel CMD ::: ARGS` runs CMD with each argument; without a command it runs the lines it reads as
 * commands; its many options are not read (unresolved).
 */
function parallel(args: readonly Word[]): Inner[] {
  const end = args.findIndex((a) => /^::::?\+?$/.test(a.text));
  const words = end < 0 ? args : args.slice(0, end);
  if (words.length === 0) return [unresolved("parallel", "it runs the commands it reads")];
  if (words.some((a) => a.open || a.text.startsWith("-"))) return [unresolved("parallel")];
  // It runs each line through a shell: the words, joined, are a script (`parallel 'rm {}' ::: a b`).
  return [script(words, "parallel")];
}

/** Configuration keys whose value git runs as a command (`git -c core.sshCommand='rm -rf ~' fetch`). */
const GIT_COMMAND_KEYS = /^(?:core\.(?:sshcommand|pager|editor|fsmonitor|askpass)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential(?:\..+)?\.helper|gpg(?:\..+)?\.program|pager\..+|alias\..+|uploadpack\.packobjectshook|core\.gitproxy|remote\..+\.(?:uploadpack|receivepack)|interactive\.difffilter|web\.browser|browser\..+\.cmd)$/i;

/** `git -c KEY=VALUE ...`: a key that runs a command makes VALUE a script; `core.hooksPath` and `--config-env` are unknown. */
function git(args: readonly Word[]): Inner[] {
  const inner: Inner[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t === "--config-env" || t.startsWith("--config-env=") || t === "--exec-path" || t.startsWith("--exec-path=")) inner.push(unresolved("git", `${t.split("=")[0]} makes git run what awl does not read`));
    if (t !== "-c") {
      if (!t.startsWith("-")) break;
      continue;
    }
    const setting = args[++i];
    if (!setting) break;
    if (setting.open) {
      inner.push(unresolved("git", "a -c setting known only when it runs"));
      continue;
    }
    const eq = setting.text.indexOf("=");
    const key = eq < 0 ? setting.text : setting.text.slice(0, eq);
    const value = eq < 0 ? "" : setting.text.slice(eq + 1);
    if (/^core\.hookspath$/i.test(key)) inner.push(unresolved("git", "core.hooksPath makes git run hooks from a folder awl does not read"));
    else if (/^alias\./i.test(key)) {
      // An alias starting with ! is a shell command; another one is git's own subcommand.
      if (value.startsWith("!")) inner.push({ kind: "script", source: value.slice(1) });
    } else if (GIT_COMMAND_KEYS.test(key) && value !== "") inner.push({ kind: "script", source: value });
  }
  return inner;
}
