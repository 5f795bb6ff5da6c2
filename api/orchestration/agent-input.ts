import { z } from 'zod';
import { AGENT_NAME_MAX, ENV_NAME } from '../../services/agents';
import { optionalWorkingDirectoryPath } from './working-directory-input';

/** The request bodies of the agents routes and the export format, with their bounds (docs/agents.md). */

/** Claude Code's `--permission-mode` values; the default is the specification's. */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;
export const DEFAULT_PERMISSION_MODE = 'bypassPermissions';
export const MAX_TURNS = { min: 1, max: 500, default: 50 } as const;
export const DESCRIPTION_MAX = 2_000;
export const INSTRUCTIONS_MAX = 50_000;
export { WORKING_DIRECTORY_MAX } from '../../lib/working-directories';

const fields = {
  name: z.string().trim().min(1).max(AGENT_NAME_MAX),
  description: z.string().max(DESCRIPTION_MAX),
  // Passed as an argument to the agent command: no leading dash, so it can never read as an option.
  model: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,99}$/, 'a model name: letters, digits and . _ : / @ [ ] - (at most 100)')
    .nullable(),
  instructions: z.string().max(INSTRUCTIONS_MAX),
  // "" (the panel's empty field) is null: the settings' default. Confined to the roots by the route.
  workingDirectory: optionalWorkingDirectoryPath,
  permissionMode: z.enum(PERMISSION_MODES),
  maxTurns: z.number().int().min(MAX_TURNS.min).max(MAX_TURNS.max),
};

/** POST /agents and the agent of an import: only `name` is required. Unknown fields are refused. */
export const agentCreateBody = z.strictObject({
  name: fields.name,
  description: fields.description.default(''),
  model: fields.model.default(null),
  instructions: fields.instructions.default(''),
  workingDirectory: fields.workingDirectory.default(null),
  permissionMode: fields.permissionMode.default(DEFAULT_PERMISSION_MODE),
  maxTurns: fields.maxTurns.default(MAX_TURNS.default),
});

/** PUT /agents/{id}: the fields given replace the current ones; at least one field. */
export const agentUpdateBody = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    model: fields.model.optional(),
    instructions: fields.instructions.optional(),
    workingDirectory: fields.workingDirectory.optional(),
    permissionMode: fields.permissionMode.optional(),
    maxTurns: fields.maxTurns.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'at least one agent field',
    // Only for an otherwise valid body: an unknown key alone is reported as such.
    when: (payload) => payload.issues.length === 0,
  });

/** The marker and format version of GET /agents/{id}/export, checked by POST /agents/import. */
export const EXPORT_FORMAT = 'agent-export';
export const EXPORT_VERSION = 1;

export const agentImportBody = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION, { error: `unsupported export version (this service reads version ${EXPORT_VERSION})` }),
  exportedAt: z.string().optional(),
  agent: agentCreateBody,
});

/**
 * A secret becomes an environment variable of the agent's process: its name is checked here with
 * the run's own rule (ENV_NAME), so a name the run would refuse is refused when it is created.
 */
export const SECRET_NAME_MAX = 128;
export const SECRET_VALUE_MAX = 32_768;
export const SECRET_NAME_RULE = 'an environment variable name: letters, digits and "_", not starting with a digit';

export const secretBody = z.strictObject({
  name: z.string().min(1).max(SECRET_NAME_MAX).regex(ENV_NAME, SECRET_NAME_RULE),
  value: z.string().min(1).max(SECRET_VALUE_MAX),
});

export const versionParam = z.coerce.number().int().min(1).max(2_147_483_647);
