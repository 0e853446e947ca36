/**
 * Bedrock's credentials and region when no access keys were given in the environment: the AWS SDK's standard chain
 * (`@aws-sdk/credential-provider-node`: `~/.aws/credentials` and `~/.aws/config` profiles, SSO, `credential_process`,
 * web identity, container and instance roles), imported on the first request that needs it so that start-up never
 * loads it. The SDK keeps the credentials and fetches new ones before they expire; each request asks it again.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { providerError, type ProviderError } from "../errors.js";
import type { AwsSettings } from "../types.js";
import type { AwsCredentials } from "./sigv4.js";

/** Where a signing request's credentials and region come from. */
export interface AwsCredentialSource {
  credentials(): Promise<AwsCredentials | ProviderError>;
  /** The profile's `region` in `~/.aws/config`, else undefined. */
  profileRegion(): Promise<string | undefined>;
}

type Chain = () => Promise<AwsCredentials>;

/**
 * What the SDK's links said when they gave up (its log lines `@smithy/property-provider -> REASON`), for the error
 * message: its own error only says "Could not load credentials from any providers". Nothing of its log is printed
 * (its multi-line warning when a profile and the key variables are both set would land on awl's terminal; the
 * profile wins, as docs/providers.md says).
 */
function reasonLog(): { reasons: string[]; logger: Record<"debug" | "info" | "warn" | "error", (...args: unknown[]) => void> } {
  const reasons: string[] = [];
  const note = (...args: unknown[]): void => {
    const match = /^@smithy\/property-provider -> (.+)/s.exec(args.map(String).join(" "));
    const reason = match?.[1]!.trim().split("\n")[0]!;
    if (reason && !/^(Skipping|AWS_PROFILE is set)/.test(reason) && !reasons.includes(reason)) reasons.push(reason);
  };
  return { reasons, logger: { debug: note, info: note, warn: () => {}, error: () => {} } };
}

const SDK_NODE_WARNING = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";

/**
 * Runs `ask` with the SDK's Node-version warning off: the clients its chain builds for SSO and role assumption
 * print eight lines on stderr under Node 20 (which awl supports), over awl's terminal. The variable is the SDK's own
 * switch; it is set only while the chain runs (the SDK then remembers the warning as given) and put back after, so
 * the programs awl's tools start do not inherit it.
 */
async function quietly<T>(ask: () => Promise<T>): Promise<T> {
  const before = process.env[SDK_NODE_WARNING];
  process.env[SDK_NODE_WARNING] = "true";
  try {
    return await ask();
  } finally {
    if (before === undefined) delete process.env[SDK_NODE_WARNING];
    else process.env[SDK_NODE_WARNING] = before;
  }
}

/** A source for `aws`: its fixed access keys when it has them, else the SDK's chain for its profile. */
export function awsCredentialSource(aws: AwsSettings): AwsCredentialSource {
  const profile = aws.profile?.name;
  const log = reasonLog();
  let chain: Promise<Chain> | undefined;
  return {
    async credentials() {
      if (aws.credentials) return aws.credentials;
      try {
        // As the AWS CLI: a profile that is in neither file is an error at once, not after the rest of the chain.
        if (aws.profile && !(await profileExists(aws.profile.name))) return providerError("config", await describeFailure(aws, []));
        const ready = (chain ??= import("@aws-sdk/credential-provider-node").then(({ defaultProvider }) => defaultProvider({ ...(profile ? { profile } : {}), logger: log.logger })));
        const found = await quietly(async () => (await ready)());
        return { accessKeyId: found.accessKeyId, secretAccessKey: found.secretAccessKey, ...(found.sessionToken ? { sessionToken: found.sessionToken } : {}) };
      } catch (error) {
        const reasons = log.reasons.splice(0);
        return providerError("config", await describeFailure(aws, reasons.length > 0 ? reasons : [firstLine(error)]));
      }
    },
    async profileRegion() {
      const { loadSharedConfigFiles } = await import("@smithy/core/config");
      const files = await loadSharedConfigFiles({ ignoreCache: true });
      return files.configFile[profile ?? "default"]?.region;
    },
  };
}

/** The SDK's reasons, with the profile and the files looked at (and what else the chain tried). */
async function describeFailure(aws: AwsSettings, reasons: string[]): Promise<string> {
  const { credentialsFile, configFile } = awsFilePaths();
  if (aws.profile) {
    const name = aws.profile.name;
    if (!(await profileExists(name)))
      return `the AWS profile "${name}" (from ${aws.profile.source}) is in neither ${credentialsFile} nor ${configFile}: add it there (aws configure --profile ${name}) or choose another profile`;
    return `no AWS credentials from the profile "${name}" (from ${aws.profile.source}) of ${credentialsFile} and ${configFile}: ${reasons[0] ?? "the SDK gave no reason"}`;
  }
  return (
    `no AWS credentials for Bedrock: looked at AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the default profile of ${credentialsFile} and ${configFile} ` +
    `(SSO, credential_process), web identity, container and instance roles (${reasons.join("; ")}); set one of them, or AWS_PROFILE`
  );
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
}

async function profileExists(name: string): Promise<boolean> {
  const { loadSharedConfigFiles } = await import("@smithy/core/config");
  const files = await loadSharedConfigFiles({ ignoreCache: true });
  return Object.hasOwn(files.credentialsFile, name) || Object.hasOwn(files.configFile, name);
}

/** The shared files as the SDK finds them: `AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`, else under `~/.aws`. */
function awsFilePaths(): { credentialsFile: string; configFile: string } {
  const home = process.env.HOME || process.env.USERPROFILE || homedir();
  return {
    credentialsFile: process.env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials"),
    configFile: process.env.AWS_CONFIG_FILE || join(home, ".aws", "config"),
  };
}
