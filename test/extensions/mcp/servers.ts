/** The reference MCP servers (devDependencies, run from node_modules/.bin: never `npx -y`), and configs for them. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";
import { resolve } from "node:path";
import type { McpServerConfig, McpTransportConfig } from "../../../src/extensions/mcp/config.js";

export const BIN = resolve(import.meta.dirname, "../../../node_modules/.bin");
export const EVERYTHING = resolve(BIN, "mcp-server-everything");
export const FILESYSTEM = resolve(BIN, "mcp-server-filesystem");
export const MEMORY = resolve(BIN, "mcp-server-memory");

export function serverConfig(name: string, transport: McpTransportConfig, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, source: "user", file: "test-config.json", transport, disabled: false, fingerprint: name, ...extra };
}

export function stdio(command: string, args: string[] = [], env: Record<string, string> = {}): McpTransportConfig {
  return { type: "stdio", command, args, env, cwd: process.cwd() };
}

/** A free TCP port on the loopback address. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Resolves once something accepts connections on the loopback port (within 30 s). */
export async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), done(true)));
      socket.once("error", () => done(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `PORT=N mcp-server-everything streamableHttp`, once it accepts connections. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  const port = await freePort();
  const child = spawn(EVERYTHING, ["streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore", detached: true });
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    },
  };
}
