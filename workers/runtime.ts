import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../lib/logger';

let installed = false;

/**
 * Routes the Temporal SDK's logs into our structured logger, and leaves signal handling
 * to us: the process drains HTTP before shutting the workers down, so the SDK must not
 * react to SIGTERM on its own. Installed once per process, before the first worker.
 */
export function installTemporalRuntime(logger: Logger): void {
  if (installed) return;
  const sdkLogger = logger.child({ component: 'temporal-sdk' });
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger(sdkLevel(logger.level), ({ level, message, meta }) => {
      const method = level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      sdkLogger[method](meta ?? {}, message);
    }),
  });
  installed = true;
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
