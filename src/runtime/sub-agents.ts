/**
 * The CLI's `task` tool (docs/agents.md): the definitions of this folder and the user's, the `agents` config
 * section's limits, sub-agents' models made from the run's provider settings, their tokens counted in the run's
 * cost, their side sessions saved beside the parent's. Bound to the runtime once it exists (`attach`).
 */
import { loadAgentDefinitions } from "../agents/definitions.js";
import { SubAgentToolSet, type SubAgentOptions } from "../agents/task-tool.js";
import type { LoadedConfig } from "../config/layers.js";
import type { SessionStore } from "../session/store.js";
import type { Runtime, RuntimeOptions } from "./runtime.js";

/** The `agents` config section (schema/config.schema.json). */
interface AgentsConfig {
  max_depth?: number;
  max_steps?: number;
  max_tokens?: number;
}

/** The `task` tool for this run, or undefined when `agents.max_depth` is 0 or `--no-std-tools` is given. Call `attach` once the runtime is built. */
export async function openSubAgents(
  options: Pick<RuntimeOptions, "cli" | "permissions" | "warn">,
  config: LoadedConfig,
  cwd: string,
): Promise<{ tools: SubAgentToolSet; attach(runtime: Runtime, sessions?: { store: SessionStore; readonly id: string | undefined }): void } | undefined> {
  const limits = config.get<AgentsConfig>("agents")?.value ?? {};
  // `task` is one of awl's bundled tools: `--no-std-tools` leaves it out with the others.
  if (limits.max_depth === 0 || options.cli.flags["no-std-tools"] === true) return undefined;
  const trusted = options.permissions?.trusted ?? (await (await import("../permissions/setup.js")).isProjectTrusted(cwd, process.env, options.cli.flags["trust-project"] === true));
  let runtime: Runtime | undefined;
  const bound = (): Runtime => {
    if (!runtime) throw new Error("the task tool ran before the runtime was built");
    return runtime;
  };
  const settings: SubAgentOptions = {
    definitions: () => loadAgentDefinitions({ cwd, trusted, env: process.env }),
    provider: () => bound().agent.provider,
    providerFor: async (model) => {
      const made = await bound().providerFor(model);
      return made.ok ? made.value.provider : made.error.message;
    },
    parentTools: () => bound().agent.tools,
    cwd,
    onUsage: (usage) => bound().usage.meter.record(usage, { context: false }),
    warn: options.warn,
    ...(limits.max_depth !== undefined && { maxDepth: limits.max_depth }),
    ...(limits.max_steps !== undefined && { maxSteps: limits.max_steps }),
    ...(limits.max_tokens !== undefined && { maxTokens: limits.max_tokens }),
  };
  return {
    tools: new SubAgentToolSet(settings),
    attach(built, sessions) {
      runtime = built;
      if (sessions) settings.sessions = { store: sessions.store, parent: () => sessions.id };
    },
  };
}
