/** Opens a web address in the user's browser when there is one to open; false when awl could not (then it only prints it). */
import { spawn } from "node:child_process";

export function openBrowser(url: string): boolean {
  const command =
    process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", '""', url.replace(/&/g, "^&")]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ["xdg-open", url]
          : undefined;
  if (!command) return false;
  try {
    const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
