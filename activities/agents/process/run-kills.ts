import { TIMEOUT_KILL_GRACE_MS } from '../../../domain/run-limits';
import { groupAlive, groupGone, signalGroup } from './process-group';

/**
 * The limits of one run and the kills they lead to (docs/agent-process.md, "Cancellation"; docs/agents.md,
 * "Time limit"): the process group gets SIGTERM, then SIGKILL after a grace period, once, whichever
 * comes first of the time limit, the abort signal, a failed delivery, or the agent's exit with tools
 * left running in its group. Says afterwards whether the run was cancelled or timed out.
 */
export class RunKills {
  private killTimer: NodeJS.Timeout | undefined;
  private limitTimer: NodeJS.Timeout | undefined;
  private exited = false;
  private abortSignal: AbortSignal | undefined;
  private _timedOut = false;
  private _cancelled = false;
  private readonly onAbort = (): void => {
    this._cancelled = true;
    this.terminate();
  };

  /** `pid`: the group's leader, undefined when the process could not start (nothing to kill). */
  constructor(
    private readonly pid: number | undefined,
    private readonly graceMs: number,
  ) {}

  /** The run was cancelled through its signal. */
  get cancelled(): boolean {
    return this._cancelled;
  }

  /** The run reached its time limit. */
  get timedOut(): boolean {
    return this._timedOut;
  }

  /** SIGTERM to the group, SIGKILL `grace` later; only the first call does anything. */
  terminate(grace = this.graceMs): void {
    if (this.pid === undefined || this.killTimer !== undefined) return;
    const pid = this.pid;
    signalGroup(pid, 'SIGTERM');
    this.killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), grace);
    this.killTimer.unref();
  }

  /** At `limitMs` from now (the process start) the run times out, unless the agent exited first. */
  limitTime(limitMs: number | undefined): void {
    if (limitMs === undefined) return;
    this.limitTimer = setTimeout(() => {
      if (this.exited) return;
      this._timedOut = true;
      this.terminate(TIMEOUT_KILL_GRACE_MS);
    }, limitMs);
  }

  /** Aborting the signal cancels the run. */
  watch(signal: AbortSignal | undefined): void {
    this.abortSignal = signal;
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The agent exited: tools it left running in its group (a dev server, a sleep) go with it. */
  agentExited(): void {
    this.exited = true;
    if (this.pid !== undefined && groupAlive(this.pid)) this.terminate();
  }

  /** Once the run's output is all read: a SIGKILL still pending is not sent when nothing of the group is left. */
  settled(): void {
    if (this.killTimer !== undefined && this.pid !== undefined && !groupAlive(this.pid)) clearTimeout(this.killTimer);
  }

  /** Waits until nothing of the group is left, at most its grace (`grace`, the kill grace by default) and 200 ms. */
  async groupGone(grace = this.graceMs): Promise<void> {
    if (this.pid !== undefined) await groupGone(this.pid, grace + 200);
  }

  /** The run is over: no time limit, no abort listener any more. */
  dispose(): void {
    clearTimeout(this.limitTimer);
    this.abortSignal?.removeEventListener('abort', this.onAbort);
  }
}
