import type { Logger } from './logger';

export type ShutdownStep = { name: string; run: () => Promise<void> };

/**
 * On SIGTERM or SIGINT runs the steps in order (HTTP first, then workers, then connections),
 * then exits 0; exits 1 if a step fails or the whole shutdown takes longer than `timeoutMs`.
 * A second signal during shutdown is ignored: the first one is already being honoured.
 */
export function shutdownOnSignals(steps: ShutdownStep[], logger: Logger, timeoutMs: number): void {
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutdown started');
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    runSteps(steps, logger).then(
      () => {
        logger.info('shutdown complete');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

async function runSteps(steps: ShutdownStep[], logger: Logger): Promise<void> {
  for (const step of steps) {
    const started = Date.now();
    await step.run();
    logger.info({ step: step.name, ms: Date.now() - started }, 'shutdown step done');
  }
}
