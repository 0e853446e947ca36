/**
 * `awl config [flags]`: the config files, the settings awl would use and where each came from, and every
 * value the files set with its file and line; never a key itself. It always shows what it can: settings that
 * cannot be resolved (no API key yet) are a note, not a failure; only a broken config file fails.
 */
import { loadConfig, settingsSources, where, resolveSettings, type LoadedConfig } from "../../config/index.js";
import { formatUserMessage } from "../../ui/error-text.js";
import { EXIT } from "../exit-codes.js";
import { parseCliArgs } from "../options.js";
import { settingsFlags, type FlagValues } from "../../runtime/flags.js";
import { userConfigDir } from "../../config/paths.js";
import { findInstructionFiles } from "../../prompt/instructions.js";
import { systemPromptChoice } from "../../runtime/system-prompt-option.js";
import type { ConfigFileValues } from "../../config/config-file.js";
import type { ProviderSettings } from "../../providers/types.js";
import { configCredentials, knownSecrets, SecretScrubber } from "../../util/secrets.js";
import { loginPlace } from "../../config/login-settings.js";
import { LOGIN_LABELS } from "../../login/session.js";
import { LoginStore, storedLoginSecrets } from "../../login/store.js";
import { isLoginProvider } from "../../login/types.js";
import { describeLogin } from "../../login/describe.js";

const HELP = `usage: awl config [flags]

Shows the config files (user, then project: the project's values win, flags win over both), the settings
awl would use with the same flags and where each came from, and every value the files set with its file
and line. API keys are never shown. The flags are the main command's (awl --help); docs/config.md lists
every key of the files.
`;

export async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return EXIT.ok;
  }
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(formatUserMessage(parsed.error));
    return EXIT.usage;
  }
  const read = await loadConfig({ env: process.env, cwd: process.cwd() });
  if (!read.ok) {
    process.stderr.write(formatUserMessage(read.error));
    return EXIT.usage;
  }
  const config = read.value;
  const out: string[] = [...fileLines(config), ""];
  const resolved = resolveSettings(settingsSources(config, process.env, settingsFlags(parsed.value.flags)));
  if (resolved.ok) {
    const settings = resolved.value;
    const p = settings.provider;
    out.push(
      "settings:",
      `  provider: ${p.provider}`,
      `  model: ${p.model} (from ${settings.modelSource})`,
      ...(p.provider === "replay" ? [`  replay script: ${p.replayFile}`] : p.login ? await signInLines(p.provider, p.login) : [`  base URL: ${p.baseUrl} (from ${settings.baseUrlSource})`, `  API key: ${p.apiKey ? `set (from ${settings.keySource})` : cloudCredentials(p) ?? "not set"}`]),
      `  max retries: ${p.maxRetries}`,
      `  stall timeout: ${p.stallTimeoutMs} ms`,
      `  first-byte timeout: ${p.firstByteTimeoutMs} ms`,
      `  max steps: ${settings.maxSteps}`,
      `  max tokens: ${p.maxTokens ?? "provider default"}`,
      `  thinking: ${p.thinking === undefined ? "the model's default (nothing sent)" : typeof p.thinking === "number" ? `budget of ${p.thinking} tokens` : p.thinking}`,
      `  interleaved thinking: ${p.interleavedThinking === false ? "off" : "on (budget thinking with tools)"}`,
    );
  } else {
    out.push("settings: incomplete, a run would stop here:", `  ${resolved.error.message}`, `  → ${resolved.error.hint}`);
  }
  out.push("", ...promptLines(parsed.value.flags, config), "", ...valueLines(config));
  // Whatever else holds a credential (a header, a URL's password, an MCP server's env) is masked too.
  const mask = new SecretScrubber([...storedLoginSecrets(loginPlace(process.env), resolved.ok ? resolved.value.provider.provider : ""), ...knownSecrets(process.env, config.values as ConfigFileValues), ...configCredentials(config.values, process.env), ...(resolved.ok ? [resolved.value.provider.apiKey, ...configCredentials({ base_url: resolved.value.provider.baseUrl })] : [])]);
  process.stdout.write(mask.text(out.join("\n") + "\n"));
  for (const warning of config.warnings) process.stderr.write(`awl: ${warning}\n`);
  return EXIT.ok;
}

/** The sign-in in use (who, plan, until when, where kept), never its tokens. */
async function signInLines(provider: string, place: NonNullable<ProviderSettings["login"]>): Promise<string[]> {
  if (!isLoginProvider(provider)) return [];
  const endpoint = `  endpoint: ${LOGIN_LABELS[provider]}'s own (fixed: no setting sends the sign-in's token elsewhere)`;
  const loaded = await new LoginStore(place).load(provider);
  if (!loaded.ok) return [endpoint, `  sign-in: cannot be read: ${loaded.problem}; run awl login ${provider}`];
  if (!loaded.record) return [endpoint, `  sign-in: none; run awl login ${provider}`];
  return [endpoint, `  sign-in: ${LOGIN_LABELS[provider]}, ${describeLogin(loaded.record)}; kept in ${loaded.where === "file" ? `${loaded.file} (mode 0600)` : "the OS keychain"}`];
}

function fileLines(config: LoadedConfig): string[] {
  const exists = new Set(config.layers.map((l) => l.path));
  return [
    "config files (the project's values win; flags win over both):",
    `  user:    ${config.paths.user}${exists.has(config.paths.user) ? "" : " (none)"}`,
    `  project: ${config.paths.project}${exists.has(config.paths.project) ? "" : " (none)"}`,
  ];
}

/** Keys whose values are secrets: shown as set, never as text. */
const SECRET_KEY = /(^|[._-])(api_?key|token|secret|password|authorization|cookie)$/i;

function valueLines(config: LoadedConfig): string[] {
  const entries = config.entries();
  if (entries.length === 0) return ["values from the files: none"];
  const shown = entries.map(({ value, source }) => ({
    left: `  ${source.key} = ${SECRET_KEY.test(source.key) ? "(set, not shown)" : JSON.stringify(value)}`,
    source,
  }));
  const width = Math.min(60, Math.max(...shown.map((s) => s.left.length)));
  return ["values from the files:", ...shown.map(({ left, source }) => `${left.padEnd(width)}  ${where(source)}`)];
}

/** Which system prompt awl sends and which instruction files it holds (AGENTS.md, CLAUDE.md). */
function promptLines(flags: FlagValues, config: LoadedConfig): string[] {
  const choice = systemPromptChoice(flags, config, process.cwd());
  const files = findInstructionFiles(process.cwd(), process.env);
  const how = !choice.ok
    ? `error: ${choice.error.message}`
    : [choice.value.replace !== undefined ? "replaced (--system-prompt or system_prompt)" : "awl's default", ...(choice.value.append !== undefined ? ["with appended text"] : [])].join(", ");
  return [
    `system prompt: ${how}`,
    files.length === 0
      ? `instruction files: none (AGENTS.md, or CLAUDE.md, from the repository root down to here, and in ${userConfigDir(process.env)}/)`
      : `instruction files (in prompt order):\n${files.map((f) => `  ${f.path}${f.truncated ? " (cut at 32 KB)" : ""}`).join("\n")}`,
  ];
}

/** How a cloud provider without an API key authenticates (docs/providers.md), or undefined. */
function cloudCredentials(p: ProviderSettings): string | undefined {
  if (p.vertex) {
    const project = p.vertex.project ? `${p.vertex.project.name} (from ${p.vertex.project.source})` : "the credentials' own";
    return `not set: requests carry a token of Google's application-default credentials, project ${project}, region ${p.vertex.region}`;
  }
  if (!p.aws) return undefined;
  const region = `region ${p.aws.region ?? "of the profile, else us-east-1"}`;
  if (p.aws.credentials) return `not set: requests are signed with the AWS access keys of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ${region}`;
  const profile = p.aws.profile ? `the AWS profile "${p.aws.profile.name}" (from ${p.aws.profile.source})` : "the AWS credential chain (default profile, SSO, roles)";
  return `not set: requests are signed with ${profile}, ${region}`;
}
