import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import { agentIsolationSummary } from '../../lib/agent-isolation';
import { checkDependencies } from '../dependency-status';
import { repoRoot } from '../../lib/paths';
import type { ApiResources } from '../resources';
import { countActiveExecutions } from '../../services/executions';
import { claudeVersion, installedClis, systemCounters } from '../../services/system';

/** The service's name and version, read once from package.json. */
const servicePackage = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };

const MIB = 1024 * 1024;
const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

/**
 * GET /api/system/status: the panel's dashboard counters (contract 3.11: agents, executions,
 * schedules, pipelines, webhooks, costs) beside each dependency up or down with its latency. Always
 * 200 while the process answers; `status` is `ok` when every dependency is up, `degraded` otherwise.
 */
export function systemRouter(resources: ApiResources): Router {
  const router = orchestrationRouter('/system');
  router.get('/status', async (ctx) => {
    const dependencies = await checkDependencies(resources);
    const allUp = Object.values(dependencies).every((dependency) => dependency.status === 'up');
    // The counters need the database: while it is down they are left out, and the checks still answer.
    const counters =
      dependencies.mysql?.status === 'up'
        ? await systemCounters({ db: resources.database.db, workdirRoots: resources.config.orchestration.workdirRoots }).catch(() => ({}))
        : {};
    ctx.body = { status: allUp ? 'ok' : 'degraded', checkedAt: new Date().toISOString(), dependencies, ...counters };
  });

  /**
   * GET /api/system/info: the contract's fields (3.11: serverVersion, nodeVersion, claudeVersion,
   * platform, uptime in whole seconds), then ours: versions, memory of this process (MiB), active
   * executions and who agents run as.
   */
  router.get('/info', async (ctx) => {
    const memory = process.memoryUsage();
    const uptime = Math.round(process.uptime());
    ctx.body = {
      serverVersion: servicePackage.version,
      nodeVersion: process.version,
      claudeVersion: await claudeVersion(resources.config.orchestration.agentCommand),
      uptime,
      service: { name: servicePackage.name, version: servicePackage.version },
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      pid: process.pid,
      uptimeSeconds: uptime,
      memoryMiB: { rss: mib(memory.rss), heapUsed: mib(memory.heapUsed), heapTotal: mib(memory.heapTotal), external: mib(memory.external) },
      activeExecutions: await countActiveExecutions({ db: resources.database.db }),
      // Who agents run as on this machine (docs/agent-process.md): user-pool, service-user or refused.
      agentIsolation: agentIsolationSummary(),
      // Every CLI an agent may run (config.cli), with the version its command reports.
      agentClis: await installedClis(resources.config.orchestration),
    };
  });
  return router;
}
