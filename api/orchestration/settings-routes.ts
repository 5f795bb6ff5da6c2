import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import type { ApiResources } from '../resources';
import { getSettings, settingsUpdate, updateSettings } from '../../services/settings';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';

/** The orchestration settings (docs/reports-notifications-settings.md); use cases in services/settings.ts. */
export function settingsRoutes(resources: ApiResources): Router {
  const deps = { db: resources.database.db, workdirRoots: resources.config.orchestration.workdirRoots };
  const router = orchestrationRouter('/settings');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await getSettings(deps);
  });

  /** The panel's fields (or the stored names, for older clients) replace the stored ones; a bad body answers 400 and changes nothing. */
  router.put('/', async (ctx) => {
    const parsed = parseInput(settingsUpdate, ctx.request.body, 'body');
    ctx.body = await updateSettings(deps, parsed, 'body');
  });

  return router;
}
