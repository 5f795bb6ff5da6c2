import { createApp } from './api/app';
import { startHttpServer } from './api/server';
import { config } from './lib/config';
import { logger } from './lib/logger';
import { closeApiResources, createApiResources } from './api/resources';
import { shutdownOnSignals, type ShutdownStep } from './lib/shutdown';
import { startAgentsWorker } from './workers/agents';
import type { QueueWorker } from './workers/queue-worker';
import { startRankingWorker } from './workers/ranking';
import { startMetricsServer } from './api/metrics';
import { serveSdkMetrics } from './workers/runtime';
import { verifyConnectionsAtStart } from './workers/connection-check';

/**
 * The process entry point. By default one process runs the HTTP server and both workers;
 * PROCESS_ROLES splits them across processes (e.g. `PROCESS_ROLES=ranking-worker`).
 * On SIGTERM: HTTP is drained first, then the workers finish their activities, then connections close.
 */
async function main(): Promise<void> {
  await verifyConnectionsAtStart(config, logger);
  const resources = createApiResources(config, logger);
  serveSdkMetrics(config.metrics.enabled);
  const workers: QueueWorker[] = [];
  if (config.roles.includes('ranking-worker')) workers.push(await startRankingWorker(config, logger));
  if (config.roles.includes('agents-worker')) workers.push(await startAgentsWorker(config, logger));

  const steps: ShutdownStep[] = [];
  if (config.roles.includes('api')) {
    const http = await startHttpServer(createApp(resources), config.http, logger);
    steps.push({ name: 'http', run: () => http.close() });
    logger.info(
      { api: `${http.url}/api`, rankingApi: `${http.url}/api/v1`, metrics: `${http.url}/metrics`, temporalUi: config.temporal.uiUrl },
      'ready',
    );
  } else if (config.metrics.enabled) {
    // A worker alone serves its metrics on METRICS_PORT (docs/observability.md).
    const metrics = await startMetricsServer(config, logger);
    steps.push({ name: 'metrics', run: () => metrics.close() });
  }
  steps.push({ name: 'workers', run: async () => void (await Promise.all(workers.map((worker) => worker.stop()))) });
  steps.push({ name: 'connections', run: () => closeApiResources(resources) });
  shutdownOnSignals(steps, logger, config.http.shutdownTimeoutMs);

  // A worker that dies on its own (e.g. lost connection beyond retries) takes the process down for a restart.
  for (const worker of workers) {
    worker.running.catch((error: unknown) => {
      logger.fatal({ err: error }, 'worker failed');
      process.exit(1);
    });
  }
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'start failed');
  process.exit(1);
});
