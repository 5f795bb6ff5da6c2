/**
 * The work a worker's drain waits for (docs/probes-and-drains.md): calls counted while they run, and
 * the signal that stops those still running when the drain's time is up. Generic: the agents worker
 * counts its runs and pushes with it (workers/agents.ts) and gives the signal to its runs.
 */

export interface DrainOutcome {
  /** Calls still running when the drain's time was up: they were told to stop (stopSignal). */
  stopped: number;
  /** How long the drain took, in ms. */
  ms: number;
}

export interface SettleOptions {
  /** The longest the drain waits (AGENT_DRAIN_TIMEOUT_MS); then stopSignal aborts. */
  timeoutMs: number;
  /**
   * Once nothing runs, how long nothing more must come before the drain ends: what the finished calls
   * lead to (a pipeline's push on this host) arrives within it. Waited from the drain's start too.
   */
  quietMs: number;
  /** How often the drain looks (ms). */
  pollMs?: number;
  /** Aborted: the drain ends now, as at its timeout. */
  cutShort?: AbortSignal;
}

export class Drain {
  private running = 0;
  private idleSince = Date.now();
  private readonly stopper = new AbortController();

  /** Aborted when a drain's time is up: what still runs stops. */
  get stopSignal(): AbortSignal {
    return this.stopper.signal;
  }

  /** Calls running now. */
  get inFlight(): number {
    return this.running;
  }

  /** `fn`, counted while each call runs. */
  track<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      this.running += 1;
      try {
        return await fn(...args);
      } finally {
        this.running -= 1;
        if (this.running === 0) this.idleSince = Date.now();
      }
    };
  }

  /**
   * Resolves when nothing runs and nothing has come for `quietMs`, counted from the later of the last
   * call's end and the drain's start: a task dispatched just before the worker stopped taking new
   * ones (a run granted this host a moment before it said it drains) arrives within it and is waited
   * for, not stopped at once. Also at `timeoutMs` or when `cutShort` aborts; then aborts stopSignal and
   * counts what it stopped.
   */
  async settle(options: SettleOptions): Promise<DrainOutcome> {
    const started = Date.now();
    const deadline = started + options.timeoutMs;
    const pollMs = options.pollMs ?? 100;
    while (Date.now() < deadline && !options.cutShort?.aborted) {
      if (this.running === 0 && Date.now() - Math.max(this.idleSince, started) >= options.quietMs) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(1, deadline - Date.now()))));
    }
    const stopped = this.running;
    if (stopped > 0) this.stopper.abort(new Error('the drain ended'));
    return { stopped, ms: Date.now() - started };
  }
}
