/**
 * A run's permissions from the config files and the flags (`awl`, `awl -p`, `awl acp`'s sessions), with the
 * notices they call for: an untrusted folder's skipped code, bad rules, bypass mode. With a terminal, a folder
 * that brings code of its own is asked about once, before any of it loads; without one (print mode, `awl acp`)
 * nothing is ever read from a terminal.
 */
import type { ConfigResult } from "../config/errors.js";
import { bypassNotice, setupPermissions, type PermissionSetup } from "../permissions/setup.js";
import { untrustedNotice } from "../permissions/trust.js";
import type { CliOptions } from "./flags.js";

export interface RunPermissionOptions {
  /** A terminal to ask the folder's trust on. */
  interactive: boolean;
  /** The folder the run works in. */
  cwd: string;
  warn(text: string): void;
}

export async function setupRunPermissions(cli: CliOptions, options: RunPermissionOptions): Promise<ConfigResult<PermissionSetup>> {
  const { cwd, warn } = options;
  const flags = cli.flags;
  const setup = (): Promise<ConfigResult<PermissionSetup>> =>
    setupPermissions({
      cwd,
      env: process.env,
      flags: {
        ...(flags.allow && { allow: flags.allow }),
        ...(flags.deny && { deny: flags.deny }),
        ...(flags["permission-mode"] !== undefined && { mode: flags["permission-mode"] }),
        bypass: flags["dangerously-skip-permissions"] === true,
        trustProject: flags["trust-project"] === true,
        sandbox: flags.sandbox === true,
      },
    });
  let result = await setup();
  if (!result.ok) return result;
  if (options.interactive && result.value.untrustedParts.length > 0) {
    const [{ askFolderTrust }, { setFolderTrust }, { realPathOf }] = await Promise.all([
      import("../ui/prompts/trust-prompt.js"),
      import("../permissions/save.js"),
      import("../permissions/paths.js"),
    ]);
    const folder = realPathOf(cwd);
    const userConfig = result.value.userConfigPath;
    if (await askFolderTrust(folder, result.value.untrustedParts, result.value.untrustedBrings)) {
      try {
        await setFolderTrust(userConfig, folder, true);
      } catch (error) {
        warn(`could not save the trust in ${userConfig}: ${(error as Error).message}; this run goes on untrusted`);
      }
      result = await setup();
      if (!result.ok) return result;
    }
  } else if (result.value.untrustedParts.length > 0) {
    warn(untrustedNotice(cwd, result.value.untrustedParts));
  }
  const pin = result.value.pin;
  if (pin) {
    // A trusted folder's pins (their modules load only then).
    const { changeList, firstPinNotice, unpinnedNotice } = await import("../trust/pin.js");
    if (pin.firstPin) warn(firstPinNotice(pin));
    if (pin.unpinned.size > 0) {
      // A trusted folder changed since: the new content loads only once the user trusts the change.
      if (options.interactive && (await (await import("../ui/prompts/trust-prompt.js")).askChangedTrust(pin.folder, changeList(pin.changes)))) {
        pin.accept();
        result = await setup();
        if (!result.ok) return result;
      } else if (!options.interactive) warn(unpinnedNotice(pin));
    }
  }
  for (const problem of result.value.problems) warn(problem);
  if (result.value.engine.mode === "bypass") warn(bypassNotice(result.value.modeSource));
  return result;
}
