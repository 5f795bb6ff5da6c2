import type { Config, ProcessRole } from './config';
import type { Logger } from './logger';

export type ShutdownStep = { name: string; run: () => Promise<void> };

/** The steps in order; a list of steps is one stage whose steps run at once (the API's drain beside the workers' stop). */
export type ShutdownPlan = ReadonlyArray<ShutdownStep | readonly ShutdownStep[]>;

export interface ShutdownOptions {
  plan: ShutdownPlan;
  logger: Logger;
  /** Past this, counted from the signal, the process exits 1 (shutdownDeadlineMs). */
  deadlineMs: number;
  /** Runs at once on the signal, before the first step: the readiness probe turns 503. */
  onSignal?: () => void;
  /** Runs on a second signal during the shutdown: the drains end now (a person pressing Ctrl-C twice). */
  onSecondSignal?: () => void;
}

/**
 * The process's deadline: each drain its roles allow (the API's delay, the agents' runs) plus the
 * bound on the rest, SHUTDOWN_TIMEOUT_MS, so the deadline never cuts a drain it allowed. The drains
 * run at once, so their sum is more than they take together: a margin, not a target.
 */
export function shutdownDeadlineMs(shutdown: Config['shutdown'], roles: readonly ProcessRole[], dependencyTimeoutMs: number): number {
  const drainDelay = roles.includes('api') ? shutdown.drainDelayMs : 0;
  // The agents worker marks its host draining before its drain and again at its close, each write
  // bounded by DEPENDENCY_TIMEOUT_MS (workers/agents.ts): outside the drain, so added, not taken from the rest.
  const agentsDrain = roles.includes('agents-worker') ? shutdown.agentDrainMs + 2 * dependencyTimeoutMs : 0;
  return drainDelay + agentsDrain + shutdown.timeoutMs;
}

/**
 * On SIGTERM or SIGINT runs the plan's stages in order, then exits 0; exits 1 if a step fails or the
 * whole shutdown takes longer than `deadlineMs`. A second signal during the shutdown runs
 * `onSecondSignal` (the drains end now); the shutdown itself goes on as it was.
 */
export function shutdownOnSignals(options: ShutdownOptions): void {
  const { plan, logger, deadlineMs } = options;
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: the drains end now');
      options.onSecondSignal?.();
      return;
    }
    shuttingDown = true;
    options.onSignal?.();
    logger.info({ signal, deadlineMs }, 'shutdown started');
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown timed out');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    runPlan(plan, logger).then(
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
  // `on`, not `once`: a second signal must not fall back to Node's default (an exit that skips the rest).
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function runPlan(plan: ShutdownPlan, logger: Logger): Promise<void> {
  for (const stage of plan) {
    const steps = Array.isArray(stage) ? (stage as readonly ShutdownStep[]) : [stage as ShutdownStep];
    // Every step of a stage is awaited, even when one fails: a worker's drain is not cut by the HTTP step's error.
    const outcomes = await Promise.allSettled(steps.map((step) => runStep(step, logger)));
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

async function runStep(step: ShutdownStep, logger: Logger): Promise<void> {
  const started = Date.now();
  await step.run();
  logger.info({ step: step.name, ms: Date.now() - started }, 'shutdown step done');
}
