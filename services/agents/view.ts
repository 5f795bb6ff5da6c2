import { AGENT_CHANGELOG, AGENT_CHANGELOG_SHAPES } from '../../domain/agent-changelog';
import { z } from 'zod';
import type { AgentData, AgentStatus } from '../../db/agent-data';
import type { Agent, AgentVersion } from '../../db/agents-store';
import { isoDateTime } from '../view-schema';
import { AGENT_CLI_NAMES, AGENT_CLIS } from '../../domain/agent-clis';

/**
 * The agent as the admin panel reads it (contract 3.1, 5.1; docs/agents.md "The agent view"): the
 * panel's names over our columns. `model` and `workingDirectory` read '' when the agent follows the
 * settings' defaults (stored null), so the panel's own fallbacks apply and '' comes back as null.
 */
export const agentConfigViewSchema = z
  .object({
    cli: z
      .enum(AGENT_CLI_NAMES)
      .meta({ description: 'The coding-agent CLI it runs; an update without it keeps the stored one (docs/agents.md)' }),
    systemPrompt: z.string().meta({ description: "The agent's system prompt; '' for none" }),
    model: z.string().meta({
      description: "'': the settings' default model, read at each run (for Claude Code; the CLI's own default for the others)",
    }),
    workingDirectory: z.string().meta({ description: "'': the settings' working directory, read at each run" }),
    allowedTools: z.string().meta({ description: "Comma-separated tool names or patterns; '': every tool the permission mode allows" }),
    maxTurns: z.number().int().meta({ description: '0: no limit of turns' }),
    permissionMode: z.string().meta({
      description: `'' (the CLI's default at run time) or one of its CLI's words: ${Object.entries(AGENT_CLIS)
        .map(([name, cli]) => `${name} ${cli.permissionModes.join(', ')} ('': ${cli.defaultPermissionMode})`)
        .join('; ')}`,
    }),
    retryOnFailure: z.boolean(),
    maxRetries: z.number().int(),
    delegateTo: z.string().meta({ description: "Another agent's id, or ''" }),
    timeout: z
      .number()
      .int()
      .optional()
      .meta({ description: "The run time limit in ms; absent: the service's default (AGENT_RUN_TIMEOUT_SECONDS)" }),
    dailyBudgetUsd: z
      .number()
      .optional()
      .meta({ description: "The agent's daily cost budget in USD; absent: none of its own (docs/budgets.md)" }),
  })
  .meta({ id: 'AgentConfig' });
export type AgentConfigView = z.infer<typeof agentConfigViewSchema>;

const agentStatus = z.enum(['active', 'inactive']) satisfies z.ZodType<AgentStatus>;

export const agentViewSchema = z
  .object({
    id: z.string(),
    agent_name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    status: agentStatus.meta({ description: 'An inactive agent is not executed' }),
    config: agentConfigViewSchema,
    version: z.number().int().meta({ description: 'The number of the current version (GET /api/agents/{id}/versions)' }),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Agent' });
export type AgentView = z.infer<typeof agentViewSchema>;

/** The view's names of the data fields: the top-level ones and the config keys (unique, so one flat list). */
const viewFieldName = z.enum(['agent_name', 'description', 'tags', 'status', ...agentConfigViewSchema.keyof().options]);

/** A version as the panel's versions modal reads it (contract 3.3, 7.2). */
export const agentVersionViewSchema = z
  .object({
    version: z.number().int(),
    changedAt: isoDateTime,
    changelog: z.string().meta({ description: AGENT_CHANGELOG_SHAPES }),
    changedFields: z.array(viewFieldName).meta({ description: "The view's names of the fields this version changed" }),
    config: agentConfigViewSchema.partial().meta({ description: 'Only the config keys this version changed, with their new values' }),
    /** The agent as it was after this version's change (a reference to Agent: no description of its own). */
    snapshot: agentViewSchema,
  })
  .meta({ id: 'AgentVersion' });
export type AgentVersionView = z.infer<typeof agentVersionViewSchema>;

export type ConfigKey = keyof AgentConfigView;

/** The view's name of each data field; config keys are unique, so one flat list names every change. */
export const VIEW_NAME: Record<keyof AgentData, 'agent_name' | 'description' | 'tags' | 'status' | ConfigKey> = {
  name: 'agent_name',
  description: 'description',
  tags: 'tags',
  status: 'status',
  cli: 'cli',
  instructions: 'systemPrompt',
  model: 'model',
  workingDirectory: 'workingDirectory',
  allowedTools: 'allowedTools',
  maxTurns: 'maxTurns',
  permissionMode: 'permissionMode',
  retryOnFailure: 'retryOnFailure',
  maxRetries: 'maxRetries',
  delegateTo: 'delegateTo',
  timeoutMs: 'timeout',
  dailyBudgetUsd: 'dailyBudgetUsd',
};

export function configView(data: AgentData): AgentConfigView {
  return {
    cli: data.cli,
    systemPrompt: data.instructions,
    model: data.model ?? '',
    workingDirectory: data.workingDirectory ?? '',
    allowedTools: data.allowedTools,
    maxTurns: data.maxTurns,
    permissionMode: data.permissionMode,
    retryOnFailure: data.retryOnFailure,
    maxRetries: data.maxRetries,
    delegateTo: data.delegateTo ?? '',
    ...(data.timeoutMs !== null ? { timeout: data.timeoutMs } : {}),
    ...(data.dailyBudgetUsd !== null ? { dailyBudgetUsd: data.dailyBudgetUsd } : {}),
  };
}

function viewOf(id: string, data: AgentData, version: number, createdAt: Date, updatedAt: Date): AgentView {
  return {
    id,
    agent_name: data.name,
    description: data.description,
    tags: [...data.tags],
    status: data.status,
    config: configView(data),
    version,
    created_at: createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

export function agentView(agent: Agent): AgentView {
  return viewOf(agent.id, agent, agent.version, agent.createdAt, agent.updatedAt);
}

/** The names a version's changes show under, and the config keys among them with their new values. */
function changesView(data: AgentData, changed: readonly (keyof AgentData)[]): Pick<AgentVersionView, 'changedFields' | 'config'> {
  const config = configView(data);
  const changedFields = changed.map((field) => VIEW_NAME[field]);
  const changedConfig: Partial<Record<ConfigKey, unknown>> = {};
  for (const name of changedFields) if (name in config) changedConfig[name as ConfigKey] = config[name as ConfigKey];
  return { changedFields, config: changedConfig as Partial<AgentConfigView> };
}

/**
 * The versions of `agent`, newest first. A version written before changes were recorded gets them
 * from the difference with the version before it (none for the oldest one kept).
 */
export function versionsView(
  agent: Agent,
  versions: readonly AgentVersion[],
  changedSince: (before: AgentData, after: AgentData) => (keyof AgentData)[],
): AgentVersionView[] {
  return versions.map((version, index) => {
    const previous = versions[index + 1];
    const changed = version.changedFields ?? (previous && version.version > 1 ? changedSince(previous.data, version.data) : []);
    return {
      version: version.version,
      changedAt: version.createdAt.toISOString(),
      changelog: version.changelog,
      ...changesView(version.data, changed),
      snapshot: viewOf(agent.id, version.data, version.version, agent.createdAt, version.createdAt),
    };
  });
}

/** A changelog naming what changed, in the view's names: "Atualizado: systemPrompt, model". */
export function updateChangelog(changed: readonly (keyof AgentData)[]): string {
  return AGENT_CHANGELOG.updated(changed.map((field) => VIEW_NAME[field]));
}
