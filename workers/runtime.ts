import { createServer } from 'node:net';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../lib/logger';
import { addMetricsSource } from '../lib/metrics';

let installing: Promise<void> | null = null;
let sdkMetrics = true;

/** Before the first worker: METRICS_ENABLED=false leaves the SDK's exporter out (bench:metrics). */
export function serveSdkMetrics(enabled: boolean): void {
  sdkMetrics = enabled;
}

/** How long a scrape waits for the SDK's own exporter before serving the rest without it. */
const SDK_SCRAPE_TIMEOUT_MS = 2_000;

/**
 * Routes the Temporal SDK's logs into our structured logger, and leaves signal handling
 * to us: the process drains HTTP before shutting the workers down, so the SDK must not
 * react to SIGTERM on its own. Installed once per process, before the first worker.
 *
 * The SDK's worker metrics (docs/observability.md) follow our conventions (seconds, `_total`, units
 * in the names) and are served by its own exporter on a loopback port chosen here; each scrape of
 * the process's one metrics address reads it and serves its text after ours, so an operator scrapes
 * one address per process.
 */
export function installTemporalRuntime(logger: Logger): Promise<void> {
  installing ??= (async () => {
    const sdkLogger = logger.child({ component: 'temporal-sdk' });
    const port = sdkMetrics ? await freeLoopbackPort() : null;
    Runtime.install({
      shutdownSignals: [],
      logger: new DefaultLogger(sdkLevel(logger.level), ({ level, message, meta }) => {
        const method = level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
        sdkLogger[method](meta ?? {}, message);
      }),
      ...(port === null
        ? {}
        : {
            telemetryOptions: {
              metrics: {
                prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
              },
            },
          }),
    });
    if (port !== null) addMetricsSource(() => sdkMetricsText(`http://127.0.0.1:${port}/metrics`, sdkLogger));
  })();
  return installing;
}

async function sdkMetricsText(url: string, logger: Logger): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(SDK_SCRAPE_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return await response.text();
  } catch (error) {
    logger.warn({ err: error, url }, "the Temporal SDK's metrics were not read: served without them");
    return '';
  }
}

/** A port free on loopback now (the SDK binds it just after; nothing else on the host races for ephemeral ports in practice). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function sdkLevel(pinoLevel: string): LogLevel {
  switch (pinoLevel) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    default:
      return 'ERROR';
  }
}
