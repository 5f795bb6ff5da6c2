import path from 'node:path';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from './index';
import { settings } from './schema';

/**
 * The orchestration settings (docs/reports-notifications-settings.md), one JSON row named
 * `orchestration` in the `settings` table. Stored fields are merged over the defaults, so a row
 * written before a field existed still reads complete.
 */

export const SETTINGS_ROW = 'orchestration';
export const MAX_CONCURRENT = { min: 1, max: 20, default: 2 } as const;
export const DEFAULT_MODEL = 'sonnet';
/** The default working directory: the projects area inside the data directory. */
export const defaultWorkingDirectory = (dataDir: string): string => path.join(dataDir, 'projects');

// Passed to the agent command as an argument: no leading dash (same rule as an agent's model).
const modelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,99}$/, 'a model name: letters, digits and . _ : / @ [ ] - (at most 100)');
const absolutePath = z
  .string()
  .max(1_000)
  .refine((value) => path.isAbsolute(value) && !value.includes('\u0000'), 'an absolute path');
const maxConcurrent = z.number().int().min(MAX_CONCURRENT.min).max(MAX_CONCURRENT.max);

export const executionSettingsSchema = z.strictObject({
  defaultModel: modelName,
  workingDirectory: absolutePath,
  maxConcurrentExecutions: maxConcurrent,
});

export type ExecutionSettings = z.output<typeof executionSettingsSchema>;

/** PUT /settings: the fields given replace the stored ones; at least one; unknown fields refused. */
export const executionSettingsUpdate = z
  .strictObject({
    defaultModel: modelName.optional(),
    workingDirectory: absolutePath.optional(),
    maxConcurrentExecutions: maxConcurrent.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'at least one settings field',
    when: (payload) => payload.issues.length === 0,
  });

export function defaultExecutionSettings(dataDir: string): ExecutionSettings {
  return { defaultModel: DEFAULT_MODEL, workingDirectory: defaultWorkingDirectory(dataDir), maxConcurrentExecutions: MAX_CONCURRENT.default };
}

/** Stored fields that still pass validation, over the defaults (a bad stored field is ignored). */
function mergeStored(stored: unknown, dataDir: string): ExecutionSettings {
  const merged: Record<string, unknown> = { ...defaultExecutionSettings(dataDir) };
  if (stored && typeof stored === 'object') {
    for (const [key, value] of Object.entries(stored)) {
      const field = executionSettingsSchema.shape[key as keyof ExecutionSettings];
      if (field?.safeParse(value).success) merged[key] = value;
    }
  }
  return merged as ExecutionSettings;
}

/** The current settings, for the routes and for the execution workflow's activities. */
export async function readExecutionSettings(db: Database, dataDir: string): Promise<ExecutionSettings> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.name, SETTINGS_ROW));
  return mergeStored(row?.value, dataDir);
}

/** Applies a validated update in one transaction (the row locked) and returns the new settings. */
export async function updateExecutionSettings(
  db: Database,
  dataDir: string,
  changes: Partial<ExecutionSettings>,
): Promise<ExecutionSettings> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ value: settings.value }).from(settings).where(eq(settings.name, SETTINGS_ROW)).for('update');
    const next = { ...mergeStored(row?.value, dataDir), ...changes };
    await tx.insert(settings).values({ name: SETTINGS_ROW, value: next }).onDuplicateKeyUpdate({ set: { value: next } });
    return next;
  });
}
