import type Router from '@koa/router';
import type { ApiResources } from '../resources';
import { deleteFileEntry, listFiles, openFileDownload, openFolderArchive, publishProject, sitesDirectory } from '../../services/files';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { filesQuery, publishBody } from './files-input';
import { orchestrationRouter } from './router';

/**
 * The projects area (contract rows 64-68, 3.15; docs/files.md): AGENT_WORKDIR_ROOTS (their union),
 * where agents write. Use cases in services/files/. Downloads are the panel's `<a download>`
 * navigations, authorised by the session cookie like any /api call.
 */
export function filesRoutes(resources: ApiResources): Router {
  const { workdirRoots, dataDir, repositories } = resources.config.orchestration;
  const deps = { roots: workdirRoots, sitesDir: sitesDirectory(dataDir), publishRepositoriesDir: repositories.publishDir };
  const router = orchestrationRouter('/files');
  router.use(useCaseErrors());

  router.get('/', async (ctx) => {
    ctx.body = await listFiles(deps, parseInput(filesQuery, ctx.query, 'query').path);
  });

  router.delete('/', async (ctx) => {
    await deleteFileEntry(deps, parseInput(filesQuery, ctx.query, 'query').path);
    ctx.body = { success: true };
  });

  router.get('/download', async (ctx) => {
    const download = await openFileDownload(deps, parseInput(filesQuery, ctx.query, 'query').path);
    ctx.attachment(download.name);
    // Whatever the extension says, the browser saves it and never renders it as a page of ours.
    ctx.type = 'application/octet-stream';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = download.stream;
    // After the body: Koa drops the length when a stream is set.
    ctx.length = download.size;
  });

  router.get('/download-folder', async (ctx) => {
    const archive = await openFolderArchive(deps, parseInput(filesQuery, ctx.query, 'query').path);
    ctx.attachment(archive.filename);
    ctx.type = 'application/gzip';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = archive.stream;
  });

  router.post('/publish', async (ctx) => {
    const body = parseInput(publishBody, ctx.request.body ?? {}, 'body');
    // The service's own address as this request reached it (its Host was checked at the edge).
    ctx.body = await publishProject(deps, body.path, `${ctx.protocol}://${ctx.host}`);
  });

  return router;
}
