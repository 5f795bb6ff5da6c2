import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { lexicalRoot, workingDirectoryPath } from '../lib/working-directories';
import type { Database } from './index';
import { settings } from './schema';
import { DAILY_BUDGET_USD_MAX } from '../domain/budgets';

/**
 * The orchestration settings (docs/reports-notifications-settings.md), one JSON row named
 * `orchestration` in the `settings` table. Stored fields are merged over the defaults, so a row
 * written before a field existed still reads complete.
 */

export const SETTINGS_ROW = 'orchestration';
export const MAX_CONCURRENT = { min: 1, max: 20, default: 5 } as const;
/** The contract's defaults (5.10): the panel's model select lists full model names, not CLI aliases. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
/** The allowed roots of working directories (config.orchestration.workdirRoots). */
export type WorkdirRoots = readonly string[];
/** The default working directory: the first allowed root, the projects area (/home/projetos, as in the legacy server). */
export const defaultWorkingDirectory = (roots: WorkdirRoots): string => roots[0] ?? '/home/projetos';

// Passed to the agent command as an argument: no leading dash (same rule as an agent's model).
export const modelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,99}$/, 'Deve ser um nome de modelo: letras, dígitos e . _ : / @ [ ] - (no máximo 100)');
export const maxConcurrent = z.number().int().min(MAX_CONCURRENT.min).max(MAX_CONCURRENT.max);
/** A daily cost budget in USD (the global one here, an agent's in its config): > 0, bounded; null: none (docs/budgets.md). */
export const dailyBudgetUsd = z.number().positive().max(DAILY_BUDGET_USD_MAX);

export const executionSettingsSchema = z.strictObject({
  defaultModel: modelName,
  workingDirectory: workingDirectoryPath,
  maxConcurrentExecutions: maxConcurrent,
  dailyBudgetUsd: dailyBudgetUsd.nullable(),
});

export type ExecutionSettings = z.output<typeof executionSettingsSchema>;

export function defaultExecutionSettings(roots: WorkdirRoots): ExecutionSettings {
  return {
    defaultModel: DEFAULT_MODEL,
    workingDirectory: defaultWorkingDirectory(roots),
    maxConcurrentExecutions: MAX_CONCURRENT.default,
    dailyBudgetUsd: null,
  };
}

/**
 * Stored fields that still pass validation, over the defaults (a bad stored field is ignored). A
 * working directory outside the roots (stored before they existed, or since the roots changed) is
 * ignored too: the default is used, and the next update rewrites the row without it.
 */
function mergeStored(stored: unknown, roots: WorkdirRoots): ExecutionSettings {
  const merged: Record<string, unknown> = { ...defaultExecutionSettings(roots) };
  if (stored && typeof stored === 'object') {
    for (const [key, value] of Object.entries(stored)) {
      const field = executionSettingsSchema.shape[key as keyof ExecutionSettings];
      const parsed = field?.safeParse(value);
      if (!parsed?.success) continue;
      if (key === 'workingDirectory' && !lexicalRoot(parsed.data as string, roots)) continue;
      merged[key] = parsed.data;
    }
  }
  return merged as ExecutionSettings;
}

/** The current settings, for the routes and for the execution workflow's activities. */
export async function readExecutionSettings(db: Database, roots: WorkdirRoots): Promise<ExecutionSettings> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.name, SETTINGS_ROW));
  return mergeStored(row?.value, roots);
}

/** Applies a validated update in one transaction (the row locked) and returns the new settings. */
export async function updateExecutionSettings(
  db: Database,
  roots: WorkdirRoots,
  changes: Partial<ExecutionSettings>,
): Promise<ExecutionSettings> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ value: settings.value }).from(settings).where(eq(settings.name, SETTINGS_ROW)).for('update');
    const next = { ...mergeStored(row?.value, roots), ...changes };
    await tx
      .insert(settings)
      .values({ name: SETTINGS_ROW, value: next })
      .onDuplicateKeyUpdate({ set: { value: next } });
    return next;
  });
}
