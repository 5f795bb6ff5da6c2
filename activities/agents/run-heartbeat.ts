import { heartbeat } from '@temporalio/activity';

/** How often the run activity says it is alive, whatever its agent prints. */
export const HEARTBEAT_EVERY_MS = 1_000;

export interface RunHeartbeat {
  /** The agent's process started: from now on the heartbeats carry the output's progress. */
  spawned(): void;
  stop(): void;
}

/**
 * The run activity's heartbeat policy (workflows/agents/execution.ts, "delivered"): alive from the
 * first instant, before any query, and without details until the agent's process starts; a heartbeat
 * timeout without details is a delivery that started no agent (lost on its way to the worker, or its
 * worker died while preparing), and the workflow schedules it again. Once spawned, each heartbeat
 * carries `{ seq }`, the last output line's number. Heartbeats are throttled, so the details can reach
 * the server late: claimAgentStart, not the heartbeat, keeps a second delivery from starting a second agent.
 */
export function startRunHeartbeat(
  seq: () => number,
  send: (details?: { seq: number }) => void = heartbeat,
  everyMs = HEARTBEAT_EVERY_MS,
): RunHeartbeat {
  let spawned = false;
  const beat = (): void => (spawned ? send({ seq: seq() }) : send());
  beat();
  const timer = setInterval(beat, everyMs);
  return {
    spawned() {
      spawned = true;
      beat();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
