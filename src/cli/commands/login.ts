/**
 * `awl login [PROVIDER] [--headless]`: signs in to a subscription awl can use (GitHub Copilot by GitHub's device
 * flow, ChatGPT by OpenAI's browser sign-in with PKCE) and keeps the tokens in the OS keychain, else a private
 * file; without PROVIDER it lists the sign-ins. Other providers are named as API-key only, with the reason.
 */
import { loginPlace } from "../../config/login-settings.js";
import { API_KEY_ONLY } from "../../login/api-key-only.js";
import { describeLogin } from "../../login/describe.js";
import { LOGIN_LABELS } from "../../login/session.js";
import { LoginStore, type SavedLogin } from "../../login/store.js";
import { isLoginProvider, LOGIN_PROVIDERS, type LoginProvider, type LoginRecord, type LoginResult } from "../../login/types.js";
import { abortableSleep } from "../../util/abortable-sleep.js";
import { EXIT } from "../exit-codes.js";

const HELP = `usage: awl login [PROVIDER] [--headless]

Signs in to a subscription awl can use instead of an API key, and keeps the sign-in in the OS keychain (else in
a private file in awl's data folder, said so):
  copilot   GitHub Copilot: awl prints a code and a GitHub address; enter the code there.
  chatgpt   ChatGPT (Plus, Pro, Business...): awl opens OpenAI's sign-in page in the browser and prints its
            address; the page sends the browser back to awl on localhost:1455. --headless opens no browser:
            open the address anywhere and, if the browser is on another machine, paste the address it ends
            on (http://localhost:1455/auth/callback?code=...) here.
Then choose the provider: --provider copilot, or "provider": "copilot" in the config file (docs/providers.md).
Without PROVIDER: lists the sign-ins. awl logout [PROVIDER] signs out.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  const headless = argv.includes("--headless");
  const rest = argv.filter((a) => a !== "--headless");
  const unknownFlag = rest.find((a) => a.startsWith("-"));
  if (unknownFlag || rest.length > 1) return usage(unknownFlag ? `unknown flag ${unknownFlag}` : `one provider at a time (got ${rest.join(", ")})`);
  const place = loginPlace(process.env);
  const store = new LoginStore(place);
  const name = rest[0]?.trim().toLowerCase();
  if (name === undefined) return list(store);
  if (!isLoginProvider(name)) {
    const reason = API_KEY_ONLY[name];
    if (reason) process.stderr.write(`awl: "${name}" is used with an API key, not a sign-in: ${reason}\n  → awl login copilot or awl login chatgpt for a subscription (docs/providers.md)\n`);
    else process.stderr.write(`awl: unknown provider "${rest[0]}"\n  → awl login signs in to ${LOGIN_PROVIDERS.join(" or ")}\n`);
    return EXIT.usage;
  }
  const signedIn = name === "copilot" ? await copilotLogin(place.testServer) : await chatgptLogin(place.testServer, headless);
  if (!signedIn.ok) {
    process.stderr.write(`awl: the ${LOGIN_LABELS[name]} sign-in failed: ${signedIn.message}\n  → try again: awl login ${name}\n`);
    return EXIT.error;
  }
  let saved: SavedLogin;
  try {
    saved = await store.save(signedIn.value);
  } catch (e) {
    process.stderr.write(`awl: signed in, but the sign-in could not be kept (${e instanceof Error ? e.message : String(e)})\n  → check that ${place.dataDir} is writable, then awl login ${name} again\n`);
    return EXIT.error;
  }
  const who = signedIn.value.account ? ` as ${signedIn.value.account}` : "";
  const plan = signedIn.value.plan ? ` (plan: ${signedIn.value.plan})` : "";
  process.stdout.write(`signed in to ${LOGIN_LABELS[name]}${who}${plan}\n`);
  if (saved.where === "keychain") process.stdout.write("the sign-in is kept in the OS keychain\n");
  else if (saved.keychainProblem)
    process.stderr.write(`awl: the OS keychain could not be used (${saved.keychainProblem}); the sign-in is kept in ${saved.file} instead, readable only by you (mode 0600)\n`);
  else process.stdout.write(`the sign-in is kept in ${saved.file}, readable only by you (mode 0600; AWL_LOGIN_STORE=file)\n`);
  process.stdout.write(`use it with --provider ${name}, or "provider": "${name}" in the config file\n`);
  return EXIT.ok;
}

async function list(store: LoginStore): Promise<number> {
  for (const provider of LOGIN_PROVIDERS) {
    const loaded = await store.load(provider);
    const state = !loaded.ok ? `cannot be read: ${loaded.problem}` : loaded.record ? `${describeLogin(loaded.record)}; kept in ${loaded.where === "file" ? loaded.file : "the OS keychain"}` : "not signed in";
    process.stdout.write(`${provider.padEnd(9)} ${LOGIN_LABELS[provider]}: ${state}\n`);
  }
  process.stdout.write("\nAPI key only:\n");
  for (const [provider, reason] of Object.entries(API_KEY_ONLY)) if (provider !== "replay") process.stdout.write(`  ${provider}: ${reason}\n`);
  return EXIT.ok;
}

async function copilotLogin(testServer: string | undefined): Promise<LoginResult<LoginRecord>> {
  const { startDeviceFlow, pollDeviceFlow, refreshCopilotToken, githubLogin } = await import("../../login/copilot.js");
  const started = await startDeviceFlow(testServer);
  if (!started.ok) return started;
  const code = started.value;
  process.stdout.write(`To sign in to GitHub Copilot, open ${code.verificationUri} and enter the code ${code.userCode}\n(waiting for GitHub; Ctrl-C stops)\n`);
  const cancel = new AbortController();
  process.once("SIGINT", () => cancel.abort());
  const token = await pollDeviceFlow(code, testServer, async (ms) => {
    if (!(await abortableSleep(ms, cancel.signal))) throw new Error("cancelled");
  }).catch((): LoginResult<string> => ({ ok: false, message: "cancelled" }));
  if (!token.ok) return token;
  const record: LoginRecord = { version: 1, provider: "copilot", refresh_token: token.value };
  const account = await githubLogin(token.value, testServer);
  // The first Copilot token proves the account has Copilot (a GitHub account without it is refused here).
  return refreshCopilotToken(account ? { ...record, account } : record, testServer);
}

async function chatgptLogin(testServer: string | undefined, headless: boolean): Promise<LoginResult<LoginRecord>> {
  const { authorizeUrl, CALLBACK_PORTS, createPkce, createState, exchangeCode } = await import("../../login/chatgpt.js");
  const { startCallbackServer } = await import("../../login/chatgpt-callback.js");
  const { openBrowser } = await import("../../login/open-browser.js");
  const pkce = createPkce();
  const state = createState();
  // The vendor's redirect allow-list names the two ports; a test server takes any free one.
  const server = await startCallbackServer(state, testServer ? [0] : CALLBACK_PORTS);
  if (!server.ok) return server;
  const { redirectUri } = server.value;
  const url = authorizeUrl({ redirectUri, challenge: pkce.challenge, state, testServer });
  try {
    const opened = !headless && openBrowser(url);
    process.stdout.write(`${opened ? "Your browser should open OpenAI's sign-in page. If it does not, open" : "To sign in to ChatGPT, open"} this address:\n\n  ${url}\n\n`);
    process.stdout.write(`(waiting for the browser to come back to ${redirectUri}; on another machine, paste the address the browser ends on here; Ctrl-C stops)\n`);
    const code = await Promise.race([server.value.code, pastedCode(server.value.fromPasted), timeout(10 * 60_000)]);
    if (!code.ok) return code;
    return await exchangeCode({ code: code.value, verifier: pkce.verifier, redirectUri, testServer });
  } finally {
    server.value.close();
    process.stdin.pause();
  }
}

/** The code from a redirect URL pasted on stdin (a browser on another machine); never settles without one. */
function pastedCode(read: (text: string) => LoginResult<string> | undefined): Promise<LoginResult<string>> {
  return new Promise((resolve) => {
    if (process.stdin.destroyed) return;
    let buffered = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split(/\r?\n/);
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        const result = read(line);
        if (result) resolve(result);
        else process.stderr.write("awl: that is not the address of this sign-in's callback (it should start http://localhost:1455/auth/callback?code=); paste it again\n");
      }
    });
    process.stdin.on("error", () => undefined);
  });
}

function timeout(ms: number): Promise<LoginResult<string>> {
  return new Promise((resolve) => setTimeout(() => resolve({ ok: false, message: `no answer from the browser within ${ms / 60_000} minutes` }), ms).unref());
}

function usage(message: string): number {
  process.stderr.write(`awl: ${message}\n  → awl login --help\n`);
  return EXIT.usage;
}
