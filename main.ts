import { setTimeout as sleep } from 'node:timers/promises';
import { createApp } from './api/app';
import { startHttpServer } from './api/server';
import { config, type ProcessRole } from './lib/config';
import { logger } from './lib/logger';
import { closeApiResources, createApiResources } from './api/resources';
import { shutdownDeadlineMs, shutdownOnSignals, type ShutdownStep } from './lib/shutdown';
import { startAgentsWorker } from './workers/agents';
import type { QueueWorker } from './workers/queue-worker';
import { startRankingWorker } from './workers/ranking';
import { startProbeServer } from './api/metrics';
import { addApiReadiness, type ProcessProbes } from './api/probes';
import { EventLoopLiveness } from './lib/event-loop-liveness';
import { Readiness, ReadinessProblem } from './lib/readiness';
import { serveSdkMetrics } from './workers/runtime';
import { verifyConnectionsAtStart } from './workers/connection-check';

const WORKER_ROLES = { 'ranking-worker': startRankingWorker, 'agents-worker': startAgentsWorker } as const;

/**
 * The process entry point. By default one process runs the HTTP server and both workers;
 * PROCESS_ROLES splits them across processes (e.g. `PROCESS_ROLES=ranking-worker`).
 * On SIGTERM (docs/probes-and-drains.md): /readyz turns 503 at once; the API serves for DRAIN_DELAY_MS
 * more, then closes, while the workers stop taking tasks and drain theirs; then connections close.
 */
async function main(): Promise<void> {
  const probes: ProcessProbes = { liveness: new EventLoopLiveness(), readiness: new Readiness(config.dependencyTimeoutMs, logger) };
  const workerRoles = config.roles.filter((role) => role !== 'api');
  // Each worker role is "starting" until its worker runs; then the worker answers for itself.
  const started = new Map<ProcessRole, QueueWorker>();
  for (const role of workerRoles) {
    probes.readiness.add(
      role,
      () => started.get(role)?.ready(config.dependencyTimeoutMs) ?? Promise.reject(new ReadinessProblem('iniciando')),
    );
  }
  // A worker alone serves its probes (and its metrics) on METRICS_PORT from the start: alive, not ready yet.
  const probeServer = config.roles.includes('api') ? null : await startProbeServer(config, logger, probes);
  await verifyConnectionsAtStart(config, logger);
  const resources = createApiResources(config, logger);
  serveSdkMetrics(config.metrics.enabled);
  const workers: QueueWorker[] = [];
  for (const role of workerRoles) {
    const worker = await WORKER_ROLES[role](config, logger);
    started.set(role, worker);
    workers.push(worker);
  }

  // A second SIGTERM or SIGINT ends the drains now (lib/shutdown.ts).
  const cutShort = new AbortController();
  const drains: ShutdownStep[] = [];
  if (config.roles.includes('api')) {
    addApiReadiness(probes.readiness, resources);
    const http = await startHttpServer(createApp(resources, probes), config.http, logger);
    drains.push({
      name: 'http',
      run: async () => {
        // /readyz answers 503 already: load balancers stop sending while this goes on serving.
        logger.info({ drainDelayMs: config.shutdown.drainDelayMs }, 'http draining');
        await sleep(config.shutdown.drainDelayMs, undefined, { signal: cutShort.signal }).catch(() => undefined);
        await http.close();
      },
    });
    logger.info(
      { api: `${http.url}/api`, rankingApi: `${http.url}/api/v1`, metrics: `${http.url}/metrics`, temporalUi: config.temporal.uiUrl },
      'ready',
    );
  }
  drains.push({ name: 'workers', run: async () => void (await Promise.all(workers.map((worker) => worker.stop(cutShort.signal)))) });
  shutdownOnSignals({
    // The probe server closes last: /readyz answers 503 until the process is gone, not "connection
    // refused" while its connections close (an idle worker drains in milliseconds).
    plan: [
      drains,
      { name: 'connections', run: () => closeApiResources(resources) },
      ...(probeServer ? [{ name: 'probes', run: () => probeServer.close() }] : []),
    ],
    logger,
    deadlineMs: shutdownDeadlineMs(config.shutdown, config.roles, config.dependencyTimeoutMs),
    onSignal: () => probes.readiness.shutDown(),
    onSecondSignal: () => cutShort.abort(),
  });

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
