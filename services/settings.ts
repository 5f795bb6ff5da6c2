import type { Database } from '../db';
import { readExecutionSettings, updateExecutionSettings, type ExecutionSettings } from '../db/execution-settings';
import { withConfinedWorkingDirectory } from './working-directories';

/** The orchestration settings (docs/reports-notifications-settings.md). */

export interface SettingsDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: the default working directory must lie under one of them; the first is the default. */
  workdirRoots: readonly string[];
}

export { executionSettingsUpdate } from '../db/execution-settings';

export function getSettings(deps: SettingsDeps): Promise<ExecutionSettings> {
  return readExecutionSettings(deps.db, deps.workdirRoots);
}

/** The fields given replace the stored ones; a working directory outside the roots is an InvalidInputError naming `field`. */
export async function updateSettings(deps: SettingsDeps, changes: Partial<ExecutionSettings>, field = 'workingDirectory'): Promise<ExecutionSettings> {
  const confined = await withConfinedWorkingDirectory(deps.workdirRoots, changes, field);
  return updateExecutionSettings(deps.db, deps.workdirRoots, confined);
}
