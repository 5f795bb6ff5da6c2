import { z } from 'zod';
import type { Database } from '../db';
import {
  defaultWorkingDirectory,
  dailyBudgetUsd,
  maxConcurrent,
  modelName,
  readExecutionSettings,
  updateExecutionSettings,
  type ExecutionSettings,
} from '../db/execution-settings';
import { normaliseInSchema, workingDirectoryPath } from '../lib/working-directories';
import { confinedWorkingDirectory } from './working-directories';

/**
 * The orchestration settings (docs/reports-notifications-settings.md). The API speaks the panel's
 * names (contract 3.12: defaultModel, defaultWorkdir, maxConcurrent); the stored row keeps its own
 * (workingDirectory, maxConcurrentExecutions), so rows written before keep working. The mapping is
 * here, at the edge.
 */

export interface SettingsDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: the default working directory must lie under one of them; the first is the default. */
  workdirRoots: readonly string[];
}

/** The settings as the API answers them. */
export const panelSettingsSchema = z
  .object({
    defaultModel: modelName,
    defaultWorkdir: z.string().meta({ description: 'Diretório de trabalho padrão, sob AGENT_WORKDIR_ROOTS' }),
    maxConcurrent: maxConcurrent.meta({ description: 'Execuções simultâneas no máximo; vale na hora' }),
    /** Not in the panel's form: a PUT without it keeps it. */
    dailyBudgetUsd: dailyBudgetUsd.nullable().meta({ description: 'Orçamento diário global em USD; null: nenhum (docs/budgets.md)' }),
  })
  .meta({ id: 'Settings' });
export type PanelSettings = z.infer<typeof panelSettingsSchema>;

export function toPanelSettings(stored: ExecutionSettings): PanelSettings {
  return {
    defaultModel: stored.defaultModel,
    defaultWorkdir: stored.workingDirectory,
    maxConcurrent: stored.maxConcurrentExecutions,
    dailyBudgetUsd: stored.dailyBudgetUsd,
  };
}

// The panel sends '' when the field is left empty: it means the default (the first root).
const panelWorkdir = z.string().transform((value, context) => (value.trim() === '' ? '' : normaliseInSchema(value, context)));

/**
 * PUT /settings: the fields given replace the stored ones; at least one; unknown fields refused.
 * The stored names `workingDirectory` and `maxConcurrentExecutions` are still accepted for older
 * clients (scripts/bench), but not together with the panel's name of the same field.
 */
export const settingsUpdate = z
  .strictObject({
    defaultModel: modelName.optional(),
    // Confined to the roots (symlinks resolved) by updateSettings before it is stored.
    defaultWorkdir: panelWorkdir.optional(),
    maxConcurrent: maxConcurrent.optional(),
    workingDirectory: workingDirectoryPath.optional(),
    maxConcurrentExecutions: maxConcurrent.optional(),
    dailyBudgetUsd: dailyBudgetUsd.nullable().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'Informe ao menos um campo de configuração',
    when: (payload) => payload.issues.length === 0,
  })
  .refine((body) => body.defaultWorkdir === undefined || body.workingDirectory === undefined, {
    message: 'defaultWorkdir e workingDirectory são o mesmo campo: informe apenas um',
    when: (payload) => payload.issues.length === 0,
  })
  .refine((body) => body.maxConcurrent === undefined || body.maxConcurrentExecutions === undefined, {
    message: 'maxConcurrent e maxConcurrentExecutions são o mesmo campo: informe apenas um',
    when: (payload) => payload.issues.length === 0,
  });

export type SettingsUpdate = z.output<typeof settingsUpdate>;

export { dailyBudgetUsd };

export async function getSettings(deps: SettingsDeps): Promise<PanelSettings> {
  return toPanelSettings(await readExecutionSettings(deps.db, deps.workdirRoots));
}

/**
 * The fields given replace the stored ones; a working directory outside the roots is an
 * InvalidInputError naming the field as sent under `prefix` (e.g. `body.defaultWorkdir`). The new
 * maxConcurrent applies at once: every waiting execution reads the limit at each look for a slot.
 */
export async function updateSettings(deps: SettingsDeps, update: SettingsUpdate, prefix = 'body'): Promise<PanelSettings> {
  const changes: Partial<ExecutionSettings> = {};
  if (update.defaultModel !== undefined) changes.defaultModel = update.defaultModel;
  const limit = update.maxConcurrent ?? update.maxConcurrentExecutions;
  if (limit !== undefined) changes.maxConcurrentExecutions = limit;
  if (update.dailyBudgetUsd !== undefined) changes.dailyBudgetUsd = update.dailyBudgetUsd;
  const [field, directory] =
    update.defaultWorkdir !== undefined ? ['defaultWorkdir', update.defaultWorkdir] : ['workingDirectory', update.workingDirectory];
  if (directory === '') changes.workingDirectory = defaultWorkingDirectory(deps.workdirRoots);
  else if (directory !== undefined)
    changes.workingDirectory = await confinedWorkingDirectory(deps.workdirRoots, directory, `${prefix}.${field}`);
  return toPanelSettings(await updateExecutionSettings(deps.db, deps.workdirRoots, changes));
}
