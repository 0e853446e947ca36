/**
 * What a program wrapped by the exec sandbox gets besides its own stdio (types.ts, `SandboxedCommand`): the
 * descriptors after stdio (the seccomp filter's), then a socket pair when it has a relay to the sandbox's proxy.
 */
import type { ChildProcess } from "node:child_process";
import type { Duplex } from "node:stream";
import type { SandboxedCommand } from "./types.js";

/** The stdio entries after the program's own three. */
export function sandboxStdio(command: SandboxedCommand): (number | "pipe")[] {
  return command.relay ? [...command.fds, "pipe"] : command.fds;
}

/** Hands a started program's end of its socket pair to its sandbox (when it has one). */
export function connectRelay(command: SandboxedCommand, child: ChildProcess): void {
  const end = child.stdio[3 + command.fds.length];
  if (command.relay && end) command.relay(end as Duplex);
}
