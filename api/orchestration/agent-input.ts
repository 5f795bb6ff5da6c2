import { z } from 'zod';
import { AGENT_NAME_MAX, ENV_NAME, type AgentData, type AgentDataInput } from '../../services/agents';
import { dailyBudgetUsd } from '../../services/settings';
import { RUN_TIMEOUT_MS } from '../../domain/run-limits';
import { AGENT_CLI_NAMES, AGENT_CLIS, DEFAULT_AGENT_CLI } from '../../domain/agent-clis';
import { definedEntriesOf, optionalShape, type Same } from './strict-body-input';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/**
 * The request bodies of the agents routes in the admin panel's shape (contract 3.1: `agent_name`,
 * `description`, `tags`, `status`, `config{...}`), with their bounds (docs/agents.md), parsed into
 * the agent's data (db/agent-data.ts).
 */

/**
 * What `permissionMode` may be: '' (the panel's "default": the CLI's default mode at run time) or a
 * word of any CLI (domain/agent-clis.ts); whether the agent's own CLI has it is the use case's check.
 */
const PERMISSION_MODES = ['', ...new Set(Object.values(AGENT_CLIS).flatMap((cli) => cli.permissionModes))] as [string, ...string[]];
export const MAX_TURNS = { min: 0, max: 500, default: 0 } as const;
export const MAX_RETRIES = { min: 1, max: 3, default: 3 } as const;
export const TAGS = { max: 20, length: 50 } as const;
export const DESCRIPTION_MAX = 2_000;
export const SYSTEM_PROMPT_MAX = 50_000;
export const ALLOWED_TOOLS_MAX = 2_000;
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,99}$/;
const MODEL_RULE = 'Deve ser um nome de modelo: letras, dígitos e . _ : / @ [ ] - (no máximo 100)';

// '' and null: the settings' default model. Passed as an argument to the agent command: no leading dash.
// Written as a pattern that admits '' (rather than a preprocess) so the OpenAPI document says so too.
const MODEL_NAME_OR_EMPTY = new RegExp(`^(?:|${MODEL_NAME.source.slice(1, -1)})$`);
const model = z
  .string()
  .regex(MODEL_NAME_OR_EMPTY, MODEL_RULE)
  .nullable()
  .transform((value) => (value === '' ? null : value));

// Each comma-separated name becomes part of one `--allowedTools` argument: none may read as an option.
const allowedTools = z.preprocess(
  (value) => (Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(',') : value),
  z
    .string()
    .max(ALLOWED_TOOLS_MAX)
    .transform((value) => value.trim())
    .refine((value) => value.split(',').every((tool) => !tool.trim().startsWith('-') && !/\p{Cc}/u.test(tool)), {
      message:
        'Deve ser uma lista de nomes de ferramentas separados por vírgula, nenhum começando com "-" nem contendo caractere de controle',
    }),
);

const tags = z
  .array(z.string().trim().min(1).max(TAGS.length))
  .max(TAGS.max)
  .transform((values) => [...new Set(values)]);

const configFields = {
  // Absent on update (the panel never sends it): the stored CLI is kept.
  cli: z.enum(AGENT_CLI_NAMES),
  systemPrompt: z.string().max(SYSTEM_PROMPT_MAX),
  model,
  // "" (the panel's empty field) is null: the settings' working directory. Confined to the roots by the use case.
  workingDirectory: optionalWorkingDirectoryPath,
  allowedTools,
  maxTurns: z.number().int().min(MAX_TURNS.min).max(MAX_TURNS.max),
  permissionMode: z.enum(PERMISSION_MODES),
  retryOnFailure: z.boolean(),
  maxRetries: z.number().int().min(MAX_RETRIES.min).max(MAX_RETRIES.max),
  // '' and null: no delegate. Another existing agent's id, checked by the store.
  delegateTo: z.preprocess((value) => (value === '' ? null : value), z.string().max(100).nullable()),
  // null: the service's default limit (AGENT_RUN_TIMEOUT_SECONDS).
  timeout: z.number().int().min(RUN_TIMEOUT_MS.min).max(RUN_TIMEOUT_MS.max).nullable(),
  // null: no budget of its own (the global one still applies; docs/budgets.md).
  dailyBudgetUsd: dailyBudgetUsd.nullable(),
};

/**
 * Import takes what the user pasted: a legacy export's `timeout` outside 1 s..24 h is held to that
 * range (and rounded to whole ms) instead of refusing the agent (docs/agents.md).
 */
const clampedTimeout = z.preprocess(
  (value) =>
    typeof value === 'number' && Number.isFinite(value)
      ? Math.min(RUN_TIMEOUT_MS.max, Math.max(RUN_TIMEOUT_MS.min, Math.round(value)))
      : value,
  configFields.timeout,
);

/** Keys of the legacy server's agents (and of our own answers) that are accepted and not kept. */
const ignored = z.unknown().optional();
const IGNORED_KEYS = {
  id: ignored,
  tasks: ignored,
  assigned_host: ignored,
  executions: ignored,
  version: ignored,
  created_at: ignored,
  updated_at: ignored,
  createdAt: ignored,
  updatedAt: ignored,
};

const fields = {
  agent_name: z.string().trim().min(1).max(AGENT_NAME_MAX),
  description: z.string().max(DESCRIPTION_MAX),
  tags,
  status: z.enum(['active', 'inactive']),
};

type ConfigInput = { [K in keyof typeof configFields]?: z.output<(typeof configFields)[K]> };
type AgentInput = { [K in keyof typeof fields]?: z.output<(typeof fields)[K]> } & { config?: ConfigInput };

/** The body's keys whose data field (db/agent-data.ts) has another name; every other key is its field's name. */
const RENAMED = { agent_name: 'name', systemPrompt: 'instructions', timeout: 'timeoutMs' } as const;
type DataKeyOf<K> = K extends keyof typeof RENAMED ? (typeof RENAMED)[K] : K;
// Every field of the body (top level and config) is a field of the agent's data, and every data field has its body field.
const _everyFieldIsData: Same<DataKeyOf<keyof typeof fields | keyof typeof configFields>, keyof AgentData> = true;

const DATA_NAMES = new Map<string, string>(Object.entries(RENAMED));
const IGNORED = new Set(Object.keys(IGNORED_KEYS));

/**
 * The data fields a parsed body gives (absent keys stay absent): every field the schema parsed, top
 * level and `config`, by its data name. No list of kept keys: a field added to the schema is kept.
 */
function dataChangesOf(body: AgentInput): Partial<AgentData> {
  const { config, ...top } = body;
  const given = { ...definedEntriesOf(top, IGNORED), ...definedEntriesOf(config ?? {}) };
  // The key mapping is checked above (_everyFieldIsData); the values are the schema's outputs.
  return Object.fromEntries(Object.entries(given).map(([key, value]): [string, unknown] => [DATA_NAMES.get(key) ?? key, value]));
}

/** What a new agent has when its body leaves a field out (the legacy server's defaults, contract 3.1). */
export const AGENT_DEFAULTS: Omit<AgentData, 'name'> = {
  description: '',
  tags: [],
  status: 'active',
  cli: DEFAULT_AGENT_CLI,
  instructions: '',
  model: null,
  workingDirectory: null,
  allowedTools: '',
  maxTurns: MAX_TURNS.default,
  permissionMode: '',
  retryOnFailure: false,
  maxRetries: MAX_RETRIES.default,
  delegateTo: null,
  timeoutMs: null,
  dailyBudgetUsd: null,
};

const configBody = z.strictObject(optionalShape(configFields));
const importedConfigBody = z.strictObject(optionalShape({ ...configFields, timeout: clampedTimeout }));

/**
 * POST /agents and POST /agents/import: the panel's body (every key present when the panel sends
 * it); only `agent_name` is required, the rest take AGENT_DEFAULTS. Unknown keys are refused.
 */
function createBodyWith(config: typeof configBody | typeof importedConfigBody) {
  return z
    .strictObject({
      ...fields,
      description: fields.description.optional(),
      tags: tags.optional(),
      status: fields.status.optional(),
      config: config.optional(),
      ...IGNORED_KEYS,
    })
    .transform((body): AgentDataInput => {
      const given = dataChangesOf(body);
      // A mode not given is its CLI's default, stored and shown (the specification's bypassPermissions for
      // Claude Code); '' given (the panel's "Padrão") is kept as '': the same mode at run time.
      const permissionMode = AGENT_CLIS[given.cli ?? AGENT_DEFAULTS.cli].defaultPermissionMode;
      return { ...AGENT_DEFAULTS, permissionMode, ...given, name: body.agent_name };
    });
}

export const agentCreateBody = createBodyWith(configBody);
/** POST /agents/import of the panel's export: the create body, a `timeout` out of range held to it. */
export const agentImportBody = createBodyWith(importedConfigBody);

/** PUT /agents/{id}: partial; the keys given replace the stored ones, `config` merged over the stored config. */
export const agentUpdateBody = z
  .strictObject({ ...optionalShape(fields), config: configBody.optional(), ...IGNORED_KEYS })
  .refine((body) => Object.keys(definedEntriesOf(body, IGNORED)).length > 0, {
    message: `Informe ao menos um de ${[...Object.keys(fields), 'config'].join(', ')}`,
    // Only for an otherwise valid body: an unknown key alone is reported as such.
    when: (payload) => payload.issues.length === 0,
  })
  .transform((body) => dataChangesOf(body));

/** The export file of this service before the panel's contract (`{format, version: 1, agent: {name, ...}}`), still imported. */
const LEGACY_PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;
export const legacyExportBody = z
  .object({
    format: z.literal('agent-export'),
    version: z.literal(1, { error: 'Versão de exportação não suportada (este serviço lê a versão 1 do formato antigo)' }),
    exportedAt: z.string().optional(),
    agent: z.strictObject({
      name: fields.agent_name,
      description: fields.description.default(''),
      model: model.default(null),
      instructions: configFields.systemPrompt.default(''),
      workingDirectory: optionalWorkingDirectoryPath.default(null),
      permissionMode: z.enum(LEGACY_PERMISSION_MODES).default('bypassPermissions'),
      maxTurns: z.number().int().min(1).max(MAX_TURNS.max).default(50),
    }),
  })
  .transform(({ agent }): AgentDataInput => ({ ...AGENT_DEFAULTS, ...agent }));

/**
 * POST /agents/import: what GET /agents/{id}/export answers (the panel's fields), or the former export
 * format; `workingDirectoryField` names where each keeps its working directory, for the use case's refusal.
 */
export function agentImportBodyFor(body: unknown): { schema: z.ZodType<AgentDataInput>; workingDirectoryField: string } {
  const legacy = typeof body === 'object' && body !== null && (body as { format?: unknown }).format === 'agent-export';
  return legacy
    ? { schema: legacyExportBody, workingDirectoryField: 'body.agent.workingDirectory' }
    : { schema: agentImportBody, workingDirectoryField: 'body.config.workingDirectory' };
}

/**
 * A secret becomes an environment variable of the agent's process: its name is checked here with
 * the run's own rule (ENV_NAME), so a name the run would refuse is refused when it is created.
 */
export const SECRET_NAME_MAX = 128;
export const SECRET_VALUE_MAX = 32_768;
export const SECRET_NAME_RULE = 'Deve ser um nome de variável de ambiente: letras, dígitos e "_", sem começar com dígito';

export const secretBody = z.strictObject({
  name: z.string().min(1).max(SECRET_NAME_MAX).regex(ENV_NAME, SECRET_NAME_RULE),
  value: z.string().min(1).max(SECRET_VALUE_MAX),
});

export const versionParam = z.coerce.number().int().min(1).max(2_147_483_647);
