import { DEFAULT_AGENT_CLI, type AgentCliName } from '../domain/agent-clis';

export type AgentStatus = 'active' | 'inactive';

/**
 * The editable data of an agent: what a version stores (its snapshot), export carries and import
 * reads. The names are the columns'; the admin panel's names are in services/agents/view.ts.
 */
export interface AgentData {
  name: string;
  description: string;
  /** Labels: strings of 1..50 characters, at most 20. */
  tags: string[];
  /** An inactive agent is not executed. */
  status: AgentStatus;
  /** The coding-agent CLI it runs (domain/agent-clis.ts: what each can honour of the fields below). */
  cli: AgentCliName;
  /** null: the service settings' default model (for a CLI that takes Claude models; else the CLI's own). */
  model: string | null;
  /** The system prompt (the panel's `config.systemPrompt`). */
  instructions: string;
  /** null: the service settings' working directory. */
  workingDirectory: string | null;
  /** One of the CLI's permission words; '' means the CLI's default at run time (the panel's "default" choice). */
  permissionMode: string;
  /** 0: no turn limit. */
  maxTurns: number;
  /** Comma-separated tool names; '' allows the permission mode's default. */
  allowedTools: string;
  retryOnFailure: boolean;
  maxRetries: number;
  /** The agent a completed run's result is handed to; null: none. */
  delegateTo: string | null;
  /** How long one run may take, in ms (the panel's `config.timeout`); null: the service's AGENT_RUN_TIMEOUT_SECONDS. */
  timeoutMs: number | null;
  /** The agent's own daily cost budget in USD (docs/budgets.md); null: none. */
  dailyBudgetUsd: number | null;
}

/**
 * The fields added for the admin panel (migration 0013), with the values that migration gave the
 * agents stored before: a version written before them reads with these values.
 */
export const PANEL_FIELD_DEFAULTS = {
  tags: [] as string[],
  status: 'active' as AgentStatus,
  allowedTools: '',
  retryOnFailure: false,
  maxRetries: 3,
  delegateTo: null as string | null,
};

/**
 * `timeoutMs` (migration 0019): a version written before it reads null, the service's default limit.
 * `cli` (migration 0028): a version written before it reads Claude Code, what every agent ran then.
 */
type PanelField = keyof typeof PANEL_FIELD_DEFAULTS | 'timeoutMs' | 'dailyBudgetUsd' | 'cli';

/** Data to create or read: the panel's fields may be absent (older callers and versions) and take their defaults. */
export type AgentDataInput = Omit<AgentData, PanelField> & Partial<Pick<AgentData, PanelField>>;

/** The data fields, in a fixed order (versions and exports compare equal). */
export const AGENT_DATA_FIELDS = [
  'name',
  'description',
  'tags',
  'status',
  'cli',
  'model',
  'instructions',
  'workingDirectory',
  'permissionMode',
  'maxTurns',
  'allowedTools',
  'retryOnFailure',
  'maxRetries',
  'delegateTo',
  'timeoutMs',
  'dailyBudgetUsd',
] as const satisfies readonly (keyof AgentData)[];

/** Picks the data fields of a row or a stored version, the panel's fields defaulted when absent. */
export function agentDataOf(source: AgentDataInput): AgentData {
  return {
    name: source.name,
    description: source.description,
    tags: [...(source.tags ?? PANEL_FIELD_DEFAULTS.tags)],
    status: source.status ?? PANEL_FIELD_DEFAULTS.status,
    cli: source.cli ?? DEFAULT_AGENT_CLI,
    model: source.model,
    instructions: source.instructions,
    workingDirectory: source.workingDirectory,
    permissionMode: source.permissionMode,
    maxTurns: source.maxTurns,
    allowedTools: source.allowedTools ?? PANEL_FIELD_DEFAULTS.allowedTools,
    retryOnFailure: source.retryOnFailure ?? PANEL_FIELD_DEFAULTS.retryOnFailure,
    maxRetries: source.maxRetries ?? PANEL_FIELD_DEFAULTS.maxRetries,
    delegateTo: source.delegateTo ?? PANEL_FIELD_DEFAULTS.delegateTo,
    timeoutMs: source.timeoutMs ?? null,
    dailyBudgetUsd: source.dailyBudgetUsd ?? null,
  };
}

/** The fields whose values differ between two versions of the data, in AGENT_DATA_FIELDS order. */
export function changedDataFields(before: AgentData, after: AgentData): (keyof AgentData)[] {
  return AGENT_DATA_FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/** A version stored before the panel's fields existed: its data lacks them, and its changed fields were not recorded. */
export function predatesPanelFields(stored: object): boolean {
  return !('tags' in stored);
}
