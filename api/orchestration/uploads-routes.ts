import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { FileTooLargeError, receiveUploads } from '../../services/uploads';
import { HttpError } from '../errors';
import { useCaseErrors } from '../use-case-errors';
import { clientIdOf } from '../websocket';
import { readMultipartFiles } from './uploads-input';
import { orchestrationRouter } from './router';

/**
 * POST /uploads (contract 3.13; docs/uploads.md): the execute modals' context files, streamed to disk.
 * Always JSON, errors included: 413 for a file over the limit, 400 for anything else refused.
 */
export function uploadsRoutes(resources: ApiResources): Router {
  const deps = { db: resources.database.db, logger: resources.logger, uploads: resources.config.orchestration.uploads };
  const router = orchestrationRouter('/uploads');
  router.use(useCaseErrors());

  router.post('/', async (ctx) => {
    const clientId = clientIdOf({}, ctx.get('x-client-id') || undefined);
    try {
      ctx.body = await receiveUploads(deps, clientId, (save) => readMultipartFiles(ctx.req, deps.uploads, save));
    } catch (error) {
      if (error instanceof FileTooLargeError) throw new HttpError(413, error.message);
      throw error;
    }
  });

  return router;
}
