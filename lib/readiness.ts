import type { Logger } from './logger';
import { TimeoutError, withTimeout } from './timeout';

/**
 * What `/readyz` answers (docs/probes-and-drains.md): whether this process can do its work now. Each
 * role adds the checks of what it needs (the API: MySQL and Redis; a worker: its Temporal workers
 * running and Temporal answering); a shutdown makes the process unready at once, checks or not. The
 * answer names each check and says `up` or `down`, and why not in fixed words: never an error's own
 * text, which may name a host or a user, since the probe answers without the token.
 */

/** Resolves when the thing it checks can serve; rejects (a ReadinessProblem says why in words meant for the answer) when not. */
export type ReadinessCheck = () => Promise<void>;

/** A check's failure whose message may be shown as it is. */
export class ReadinessProblem extends Error {
  override name = 'ReadinessProblem';
}

export type CheckState = 'up' | 'down';

export interface ReadinessAnswer {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckState>;
  /** Why not, one reason per failed check (pt-BR: a person reads them); only when unavailable. */
  reasons?: string[];
}

export const SHUTTING_DOWN_REASON = 'o processo está encerrando (SIGTERM): não recebe trabalho novo';

/**
 * How long one round of checks answers every probe that asks: the probes answer without the token, so
 * a flood of them must not become a flood of queries to MySQL, Redis and Temporal.
 */
export const READINESS_REUSE_MS = 1_000;

export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly lastStates = new Map<string, CheckState>();
  private stopping = false;
  private latest: { at: number; answer: Promise<ReadinessAnswer> } | null = null;

  constructor(
    /** Each check's bound (DEPENDENCY_TIMEOUT_MS): a check that takes longer is down. */
    private readonly timeoutMs: number,
    private readonly logger?: Logger,
    /** How long a round of checks is reused (READINESS_REUSE_MS; 0 in unit tests). */
    private readonly reuseMs: number = READINESS_REUSE_MS,
  ) {}

  /** Adds (or replaces) the check `name`. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
    this.latest = null;
  }

  /** The process drains: unready from now on, whatever the checks say. */
  shutDown(): void {
    this.stopping = true;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /**
   * Every check at once, each bounded by the timeout; never throws. Probes that ask while a round runs,
   * or within `reuseMs` of its start, get that round's answer; a shutdown answers at once.
   */
  answer(): Promise<ReadinessAnswer> {
    if (this.stopping) return Promise.resolve({ status: 'unavailable', checks: {}, reasons: [SHUTTING_DOWN_REASON] });
    const now = Date.now();
    if (this.latest === null || now - this.latest.at >= this.reuseMs) this.latest = { at: now, answer: this.checkAll() };
    return this.latest.answer;
  }

  private async checkAll(): Promise<ReadinessAnswer> {
    const entries = [...this.checks];
    const outcomes = await Promise.all(entries.map(([name, check]) => this.run(name, check)));
    const checks: Record<string, CheckState> = {};
    const reasons: string[] = [];
    entries.forEach(([name], index) => {
      const reason = outcomes[index] ?? null;
      const state: CheckState = reason === null ? 'up' : 'down';
      checks[name] = state;
      if (reason !== null) reasons.push(`${name}: ${reason}`);
      this.noteState(name, state, reason);
    });
    return reasons.length === 0 ? { status: 'ok', checks } : { status: 'unavailable', checks, reasons };
  }

  /** Null when the check passed; else the reason, in words that reveal nothing but the state. */
  private async run(name: string, check: ReadinessCheck): Promise<string | null> {
    try {
      await withTimeout(check(), this.timeoutMs, name);
      return null;
    } catch (error) {
      if (error instanceof ReadinessProblem) return error.message;
      if (error instanceof TimeoutError) return `sem resposta em ${this.timeoutMs} ms`;
      this.logger?.debug({ err: error, check: name }, 'readiness check failed');
      return 'não respondeu';
    }
  }

  /** Logs a check that changed state (not every probe: they come every few seconds). */
  private noteState(name: string, state: CheckState, reason: string | null): void {
    const before = this.lastStates.get(name);
    this.lastStates.set(name, state);
    if (before === state || (before === undefined && state === 'up')) return;
    if (state === 'down') this.logger?.warn({ check: name, reason }, 'not ready');
    else this.logger?.info({ check: name }, 'ready again');
  }
}
