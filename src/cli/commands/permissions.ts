/** `awl permissions`: every rule in force with where it comes from; remove one; trust or untrust this folder. */
import { parseArgs } from "node:util";
import { permissionsText, removeListedRule, rulesJSON } from "../../permissions/listing.js";
import { setFolderTrust } from "../../permissions/save.js";
import { setupPermissions, type PermissionSetup } from "../../permissions/setup.js";
import { isTrustedFolder } from "../../permissions/trust.js";
import { realPathOf } from "../../permissions/paths.js";
import { EXIT } from "../exit-codes.js";
import { configError, processIO, usageError, type CommandIO } from "./extension-host.js";

export const PERMISSIONS_USAGE = `usage: awl permissions [--json] [--trust-project] [--sandbox] [--allow RULE]... [--deny RULE]...
       awl permissions remove N      remove rule number N (as listed) from its config file
       awl permissions trust         trust this folder: its .awl/extensions, allow rules and .mcp.json load
       awl permissions untrust       stop trusting it

Lists the permission mode, whether this folder is trusted, whether the sandbox is on, and every rule in force
(deny, ask, allow), each with its number and where it comes from (file:line or flag).
See docs/permissions.md.
`;

export async function run(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        json: { type: "boolean" },
        "trust-project": { type: "boolean" },
        sandbox: { type: "boolean" },
        allow: { type: "string", multiple: true },
        deny: { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return usageError(io, "permissions", (error as Error).message.split(". ")[0] ?? String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return io.stdout(PERMISSIONS_USAGE), EXIT.ok;
  const flags = { ...(values.allow && { allow: values.allow }), ...(values.deny && { deny: values.deny }), trustProject: values["trust-project"] === true, sandbox: values.sandbox === true };
  const setup = await setupPermissions({ cwd: process.cwd(), env: process.env, flags });
  if (!setup.ok) return configError(io, setup.error);
  const [verb, ...rest] = positionals;
  const folder = realPathOf(process.cwd());
  switch (verb) {
    case undefined: {
      for (const problem of setup.value.problems) io.stderr(`awl: ${problem}\n`);
      const { readEnablement } = await import("../../extensions/enablement.js");
      const ignored = [...setup.value.config.skipped, ...readEnablement(process.cwd(), process.env).ignored];
      if (values.json) {
        const sandbox = setup.value.sandbox ? { on: true, source: setup.value.sandbox.source, auto_allow: setup.value.engine.sandboxAutoAllow } : { on: false };
        io.stdout(`${JSON.stringify({ mode: setup.value.engine.mode, folder, trusted: setup.value.trusted, sandbox, ignored, rules: rulesJSON(setup.value.engine) }, null, 2)}\n`);
      } else {
        const sandbox = setup.value.sandbox?.source;
        io.stdout(permissionsText(setup.value.engine, { modeSource: setup.value.modeSource, folder, trust: trustText(setup.value, folder), ignored, ...(sandbox && { sandbox }) }));
      }
      return EXIT.ok;
    }
    case "remove": {
      const n = Number(rest[0]);
      if (rest.length !== 1 || !Number.isInteger(n)) return usageError(io, "permissions", "remove takes one rule number, as `awl permissions` lists it");
      const removed = await removeListedRule(setup.value.engine, n);
      if (!removed.ok) return usageError(io, "permissions", removed.message);
      io.stdout(`removed ${removed.rule.action} rule "${removed.rule.text}" (${removed.from})\n`);
      return EXIT.ok;
    }
    case "trust":
    case "untrust":
      if (rest.length > 0) return usageError(io, "permissions", `${verb} takes no argument: it is about this folder`);
      try {
        await setFolderTrust(setup.value.userConfigPath, folder, verb === "trust");
      } catch (error) {
        return configError(io, { message: `cannot change ${setup.value.userConfigPath}: ${(error as Error).message}`, hint: "check the file" });
      }
      io.stdout(verb === "trust" ? `trusted ${folder} (saved in ${setup.value.userConfigPath})\n` : `${folder} is no longer trusted\n`);
      return EXIT.ok;
    default:
      return usageError(io, "permissions", `unknown argument "${verb}"`);
  }
}

function trustText(setup: PermissionSetup, folder: string): string {
  if (isTrustedFolder(folder, setup.config.trustedFolders)) return `trusted (${setup.userConfigPath}); awl permissions untrust revokes it`;
  if (setup.trusted) return "trusted for this run (--trust-project)";
  const parts = setup.untrustedParts;
  return parts.length > 0 ? `not trusted: its ${parts.join(", ")} are not loaded (awl permissions trust)` : "not trusted (it brings nothing that needs trust)";
}
