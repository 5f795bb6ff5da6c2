import { performance } from 'node:perf_hooks';

/**
 * What `/livez` judges (docs/probes-and-drains.md): how late a timer of the process fires. A loop that
 * ran one piece of work for longer than STUCK_LOOP_MS, or is doing so now, is stuck; nothing in this
 * service is meant to hold the loop for more than a fraction of a second (the slowest known: bundling
 * the workflows when a worker starts from source, well under STUCK_LOOP_MS). A loop that stays blocked
 * cannot answer at all: the probe's own timeout catches that; this catches a loop that answers
 * between long stalls.
 */
export const STUCK_LOOP_MS = 10_000;

/** How often the timer ticks: a lateness is measured at this resolution. */
const TICK_MS = 200;
/** A stall is remembered for one to two windows: a probe every few seconds sees it at least once. */
const WINDOW_MS = 30_000;

export interface LoopState {
  stuck: boolean;
  /** The longest delay of the loop seen in the last one to two windows, or the current one, in ms. */
  longestDelayMs: number;
}

export class EventLoopLiveness {
  private lastTick = performance.now();
  private windowMax = 0;
  private previousWindowMax = 0;
  private windowStart = this.lastTick;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stuckAfterMs = STUCK_LOOP_MS,
    private readonly windowMs = WINDOW_MS,
    private readonly tickMs = TICK_MS,
  ) {
    this.timer = setInterval(() => this.tick(), tickMs);
    // The probe never keeps a process alive.
    this.timer.unref();
  }

  /** The loop's state now: the delays measured, and the one of a tick that is overdue right now. */
  state(): LoopState {
    const overdue = Math.max(0, performance.now() - this.lastTick - this.tickMs);
    const longestDelayMs = Math.round(Math.max(this.windowMax, this.previousWindowMax, overdue));
    return { stuck: longestDelayMs > this.stuckAfterMs, longestDelayMs };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = performance.now();
    this.windowMax = Math.max(this.windowMax, now - this.lastTick - this.tickMs);
    this.lastTick = now;
    if (now - this.windowStart >= this.windowMs) {
      this.previousWindowMax = this.windowMax;
      this.windowMax = 0;
      this.windowStart = now;
    }
  }
}
