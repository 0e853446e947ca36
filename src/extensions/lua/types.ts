/**
 * The Lua runtime's public contract: what the extension registry (discovery, ToolSet adapter, CLI)
 * builds on. The runtime itself lives in worker threads (see pool.ts).
 */
import type { Duplex } from "node:stream";
import type { ToolKind, ToolOutcome, ToolProgress } from "../../tools/types.js";
import type { SearchSettings } from "../../web/search.js";

/** One discovered extension, ready to load. */
export interface ExtensionEntry {
  /** Dotted name, e.g. `coding.edit`. */
  name: string;
  /** Absolute path of `x.lua` or `x/init.lua`. */
  file: string;
  /** Absolute directory of the extension: the dir of `init.lua`, or the dir of the single file. */
  root: string;
  /**
   * The entry point's text as read when the version was accepted (a reload): every worker, those started later
   * too, then runs that version, even after the file changed again. Absent: read from `file`.
   */
  source?: Uint8Array;
}

/** A tool an extension registered, as the registry needs it (validation of names and duplicates is the registry's job). */
export interface LuaToolRegistration {
  extension: string;
  name: string;
  description: string;
  /** The input schema as deterministic JSON text (sorted keys; the same tables give the same bytes). */
  schema: string;
  /** Why the schema cannot be offered (a value JSON cannot hold, or not a valid JSON Schema): the registry refuses the tool. */
  schema_error?: string;
  parallel: boolean;
  /** Its declared kinds (`["exec"]` when it declared none). */
  kinds: ToolKind[];
  /** The tool's own timeout (`timeout = seconds` in Lua), if it declared one. */
  timeout_ms?: number;
  /** The file and line of the `register_tool` call. */
  file: string;
  line: number;
  has_render: boolean;
  has_available: boolean;
  /** A slash command (`awl.register_command`), named `/NAME` here; awl keeps it apart from the tools. */
  command?: boolean;
  /** An event hook (`awl.on(event, handler)`), named `@EVENT#N` here; dispatched by src/hooks/, never offered as a tool. */
  hook?: string;
}

/** A slash command an extension registered with `awl.register_command` (the interactive mode offers it). */
export interface LuaCommand {
  extension: string;
  /** Without the slash: `deploy` for `/deploy`. */
  name: string;
  description: string;
  /** The file and line of the `register_command` call. */
  file: string;
  line: number;
}

/** An extension that failed to load: the other extensions are unaffected. */
export interface ExtensionLoadError {
  extension: string;
  file: string;
  line?: number;
  /** Human-readable, includes `file:line` where known. */
  message: string;
  /** The Lua traceback, when the error was raised by running code. */
  traceback?: string;
}

export interface LuaPoolOptions {
  extensions: ExtensionEntry[];
  /**
   * Extensions (names in `extensions`) the first worker loads before the others, for a call on its way: a call of
   * theirs runs as soon as they are loaded, the others loading around it.
   */
  loadFirst?: readonly string[];
  /** The folder relative paths, programs and load-time code start from; default `process.cwd()`. */
  cwd?: string;
  /** Most worker slots at once; default `os.availableParallelism()`. */
  maxSlots?: number;
  /** Memory cap per Lua state; default 256 MB. */
  memoryLimitBytes?: number;
  /** Timeout for calls that do not pass one; default 120 s. */
  defaultTimeoutMs?: number;
  /** How long one extension's top-level code may run while loading; default 10 s. */
  loadTimeoutMs?: number;
  /** Extra `require` directories searched before LUA_PATH and the system trees (e.g. `~/.config/awl/lua`). */
  luaPath?: string[];
  /** The environment handlers see (`os.getenv`, child processes); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * API keys replaced by `[REDACTED]` in what `awl.fs.open_spill` writes, besides those of `env` (its `*_API_KEY`
   * variables and awl's own), which always are.
   */
  secrets?: readonly string[];
  /**
   * Where `print`, `io.write`, `awl.log` and the output of programs a handler runs go; default: stderr,
   * each line prefixed with `[extension]`. `stream`: "stdout", "stderr", "log" or "warn".
   */
  onLog?: (extension: string, text: string, stream: string) => void;
  /** Where `awl.fs.read_text` / `awl.fs.write_text` go instead of the local disk (e.g. an editor's buffers over ACP). */
  textHost?: TextHost;
  /**
   * Runs every program the extensions start (handlers and top-level code: `io.popen`, `os.execute`, `awl.exec`,
   * `awl.spawn`) through a sandbox.
   */
  sandbox?: ProcessSandbox;
  /**
   * Decides every host and address `awl.http` reaches (awl's: the permission engine's `network` rules); without
   * one every request goes out.
   */
  network?: NetworkGate;
  /** The `search` config key (docs/config.md): the backend `awl.web.search` asks. */
  search?: SearchSettings;
}

/** What `awl.http` asks before it connects (docs/permissions.md, "Network"). */
export interface NetworkRequest {
  url: URL;
  /** The tool whose call makes the request ("" outside a call: an extension's top level, a hook). */
  tool: string;
  extension: string;
  /** Hosts the user approved for this call when asked about it (the `fetch` tool's URL). */
  granted: readonly string[];
}

/** Decides where `awl.http` may go: undefined when it may, else why not (the message the handler gets). */
export interface NetworkGate {
  /** Before each connection (the first and each redirect). */
  host(request: NetworkRequest): Promise<string | undefined> | string | undefined;
  /** For each address the host is or resolves to (the address connected to). */
  address(request: NetworkRequest, address: string): string | undefined;
}

/**
 * A sandbox for the programs Lua extensions start (`LuaToolSet.open({ sandbox })`; awl's is bubblewrap,
 * src/permissions/sandbox.ts).
 */
export interface ProcessSandbox {
  /** The command line that runs `argv` in `cwd` inside the sandbox (which decides whether it may reach the network). */
  wrap(argv: readonly string[], cwd: string): SandboxedCommand;
}

/** A program wrapped by a sandbox: the command line, and descriptors it gets as fd 3, 4, … (the caller closes them once it started). */
export interface SandboxedCommand {
  argv: string[];
  fds: number[];
  /**
   * When set, the program gets one more descriptor after `fds`: a socket pair (stdio `"pipe"`), whose end the
   * caller hands here once it started (the sandbox's network, src/permissions/sandbox-relay.ts).
   */
  relay?: (end: Duplex) => void;
}

/**
 * A host for file text other than the local disk: `awl.fs.read_text` and `awl.fs.write_text` (which the std file
 * tools read and write through) call it from the main thread. Paths are absolute. A rejection's message is the
 * error the handler gets.
 */
export interface TextHost {
  /** The whole text of the file. */
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
}

/** Per-call context values the handler sees in `ctx`. */
export interface ToolContextData {
  cwd: string;
  workspace: string;
  home: string;
  spill_dir: string;
  result_limit: number;
}

export interface LuaCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (update: ToolProgress) => void;
  /**
   * What the call printed (Lua `print`/`io.write`, output of processes it started to the log) while it ran;
   * without it that goes to the pool's log with the rest.
   */
  onLog?: (stream: string, text: string) => void;
  /** Hosts the user approved for this call when asked about it: `awl.http` may reach them during it. */
  grantedHosts?: readonly string[];
}

export type { ToolOutcome, ToolProgress };
