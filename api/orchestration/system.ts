import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import { agentIsolationSummary } from '../../lib/agent-isolation';
import { checkDependencies } from '../../lib/dependency-status';
import { repoRoot } from '../../lib/paths';
import type { Services } from '../../lib/services';
import { countActiveExecutions } from '../../services/executions';

/** The service's name and version, read once from package.json. */
const servicePackage = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };

const MIB = 1024 * 1024;
const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

/**
 * GET /api/system/status: each dependency up or down with its latency. Always 200 while the
 * process answers; `status` is `ok` when every dependency is up, `degraded` otherwise.
 */
export function systemRouter(services: Services): Router {
  const router = orchestrationRouter('/system');
  router.get('/status', async (ctx) => {
    const dependencies = await checkDependencies(services);
    const allUp = Object.values(dependencies).every((dependency) => dependency.status === 'up');
    ctx.body = { status: allUp ? 'ok' : 'degraded', checkedAt: new Date().toISOString(), dependencies };
  });

  /** GET /api/system/info: versions, uptime, memory of this process (MiB) and active executions. */
  router.get('/info', async (ctx) => {
    const memory = process.memoryUsage();
    ctx.body = {
      service: { name: servicePackage.name, version: servicePackage.version },
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      pid: process.pid,
      uptimeSeconds: Math.round(process.uptime()),
      memoryMiB: { rss: mib(memory.rss), heapUsed: mib(memory.heapUsed), heapTotal: mib(memory.heapTotal), external: mib(memory.external) },
      activeExecutions: await countActiveExecutions({ db: services.database.db }),
      // Who agents run as on this machine (docs/agent-process.md): user-pool, service-user or refused.
      agentIsolation: agentIsolationSummary(),
    };
  });
  return router;
}
