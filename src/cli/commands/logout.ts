/** `awl logout [PROVIDER]`: removes a sign-in (every sign-in without PROVIDER) from the OS keychain and the private file. */
import { loginPlace } from "../../config/login-settings.js";
import { LOGIN_LABELS } from "../../login/session.js";
import { LoginStore } from "../../login/store.js";
import { isLoginProvider, LOGIN_PROVIDERS } from "../../login/types.js";
import { EXIT } from "../exit-codes.js";

const HELP = `usage: awl logout [PROVIDER]

Removes the sign-in of PROVIDER (copilot or chatgpt; without it: both) from the OS keychain and from awl's
private file. The tokens stay valid at the vendor until they expire or you revoke the app there (GitHub: Settings,
Applications; ChatGPT: Settings, Security).
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  if (argv.length > 1 || argv.some((a) => a.startsWith("-"))) {
    process.stderr.write(`awl: ${argv.length > 1 ? "one provider at a time" : `unknown flag ${argv.find((a) => a.startsWith("-"))}`}\n  → awl logout --help\n`);
    return EXIT.usage;
  }
  const named = argv[0]?.trim().toLowerCase();
  if (named !== undefined && !isLoginProvider(named)) {
    process.stderr.write(`awl: "${argv[0]}" has no sign-in\n  → awl logout signs out of ${LOGIN_PROVIDERS.join(" or ")}\n`);
    return EXIT.usage;
  }
  const store = new LoginStore(loginPlace(process.env));
  let failed = false;
  for (const provider of named ? [named] : LOGIN_PROVIDERS) {
    const { removed, problem } = await store.remove(provider);
    if (problem) {
      failed = true;
      process.stderr.write(`awl: the OS keychain could not be asked to remove the ${LOGIN_LABELS[provider]} sign-in (${problem})\n  → unlock the keychain and run awl logout ${provider} again\n`);
    }
    if (removed.length > 0) process.stdout.write(`signed out of ${LOGIN_LABELS[provider]} (removed from ${removed.map((w) => (w === "file" ? store.file(provider) : "the OS keychain")).join(" and ")})\n`);
    else if (!problem) process.stdout.write(`not signed in to ${LOGIN_LABELS[provider]}\n`);
  }
  return failed ? EXIT.error : EXIT.ok;
}
