import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import { executionSettingsUpdate, readExecutionSettings, updateExecutionSettings } from '../../db/execution-settings';
import type { Services } from '../../lib/services';
import { parseInput } from '../validation';
import { withConfinedWorkingDirectory } from './working-directory-input';

/** The orchestration settings (docs/reports-notifications-settings.md). */
export function settingsRoutes(services: Services): Router {
  const { db } = services.database;
  const { workdirRoots } = services.config.orchestration;
  const router = orchestrationRouter('/settings');

  router.get('/', async (ctx) => {
    ctx.body = await readExecutionSettings(db, workdirRoots);
  });

  /** The fields given replace the stored ones; a bad body answers 400 and changes nothing. */
  router.put('/', async (ctx) => {
    const parsed = parseInput(executionSettingsUpdate, ctx.request.body, 'body');
    const changes = await withConfinedWorkingDirectory(parsed, workdirRoots, 'body.workingDirectory');
    ctx.body = await updateExecutionSettings(db, workdirRoots, changes);
  });

  return router;
}
