/**
 * A run's time limit (docs/agents.md, "Time limit"): the agent's `config.timeout` in ms, else the
 * service's AGENT_RUN_TIMEOUT_SECONDS. Pure: the API validates with the bounds, the workflow and the
 * activity compute the limit and the record's error with the same functions.
 */

/** `config.timeout` and AGENT_RUN_TIMEOUT_SECONDS: 1 s to 24 h. */
export const RUN_TIMEOUT_MS = { min: 1_000, max: 86_400_000 } as const;
/** At the limit the agent's process group gets SIGTERM, then SIGKILL this much later (admin-panel.md §4.4). */
export const TIMEOUT_KILL_GRACE_MS = 5_000;

/** The limit of one run of an agent whose `config.timeout` is `agentTimeoutMs` (null: the default). */
export function runTimeLimitMs(agentTimeoutMs: number | null | undefined, defaultMs: number): number {
  return agentTimeoutMs ?? defaultMs;
}

/** The record's error of a run stopped at its limit, in the panel's language. */
export function timedOutError(limitMs: number): string {
  return `a execução excedeu o tempo limite de ${durationText(limitMs)} e foi encerrada`;
}

/** "30 min", "1 h 30 min", "45 s", "2 min 5 s": whole units, largest first, zeros left out. */
export function durationText(ms: number): string {
  const totalSeconds = Math.max(1, Math.round(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const parts = [hours > 0 ? `${hours} h` : '', minutes > 0 ? `${minutes} min` : '', seconds > 0 ? `${seconds} s` : ''];
  return parts.filter((part) => part !== '').join(' ');
}
