/**
 * Ctrl-V at the prompt (docs/cli.md): the image on the system clipboard, read through the platform's clipboard
 * program (`wl-paste` under Wayland, `xclip` under X11, `pngpaste` on macOS), saved as a PNG file under awl's
 * cache folder so the prompt attaches it as `@path` like any image file. A program that is missing, finds no
 * image, fails or hangs (it is stopped after a few seconds) gives a message saying which and what to do.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { userCacheDir } from "../config/paths.js";

/** An image larger than this is refused (the model takes far less). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** How long the clipboard program may take. */
const CLIPBOARD_TIMEOUT_MS = 3000;

interface ClipboardProgram {
  command: string;
  args: string[];
}

/** The programs to ask, in order, on this platform and display. */
function programs(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): ClipboardProgram[] {
  if (platform === "darwin") return [{ command: "pngpaste", args: ["-"] }];
  const found: ClipboardProgram[] = [];
  if (env.WAYLAND_DISPLAY) found.push({ command: "wl-paste", args: ["--no-newline", "--type", "image/png"] });
  if (env.DISPLAY) found.push({ command: "xclip", args: ["-selection", "clipboard", "-target", "image/png", "-out"] });
  return found;
}

/** The clipboard's image saved as a file (its path), or why there is none. */
export async function pasteClipboardImage(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<{ path: string } | { error: string }> {
  const candidates = programs(env, platform);
  if (candidates.length === 0) {
    return { error: platform === "darwin" ? "no image pasted: install pngpaste (brew install pngpaste) to paste images" : "no image pasted: there is no display to read a clipboard from (DISPLAY and WAYLAND_DISPLAY are unset); give the image's path with @ instead" };
  }
  const reasons: string[] = [];
  for (const program of candidates) {
    const got = await run(program, env);
    if ("data" in got) {
      if (got.data.length === 0) {
        reasons.push(`${program.command}: the clipboard holds no image`);
        continue;
      }
      const dir = join(userCacheDir(env), "pastes");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `image-${new Date().toISOString().replace(/[:.]/g, "-")}.png`);
      writeFileSync(path, got.data, { mode: 0o600 });
      return { path };
    }
    reasons.push(`${program.command}: ${got.error}`);
  }
  return { error: `no image pasted (${reasons.join("; ")})` };
}

function run(program: ClipboardProgram, env: NodeJS.ProcessEnv): Promise<{ data: Buffer } | { error: string }> {
  return new Promise((done) => {
    const child = spawn(program.command, program.args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let settled = false;
    const finish = (result: { data: Buffer } | { error: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(result);
    };
    const kill = (): void => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish({ error: `it did not answer within ${CLIPBOARD_TIMEOUT_MS / 1000} s` });
    }, CLIPBOARD_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_IMAGE_BYTES) {
        kill();
        finish({ error: `the image is over ${MAX_IMAGE_BYTES / 1024 / 1024} MB` });
      } else chunks.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", (error: NodeJS.ErrnoException) => finish({ error: error.code === "ENOENT" ? "not installed" : error.message }));
    child.on("close", (code) => {
      if (code === 0) finish({ data: Buffer.concat(chunks) });
      else finish({ error: stderr.trim().split("\n")[0] || `it exited with ${code}` });
    });
  });
}
