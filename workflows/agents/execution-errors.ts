/**
 * The errors an agent execution's record ends with when the agent itself did not fail
 * (docs/agent-executions.md). Plain constants: imported by the workflow, the activities and the API.
 */

/** The worker running the agent vanished: the run activity timed out on its heartbeat. */
export const WORKER_LOST_ERROR = 'the worker running this execution stopped (heartbeat timeout)';
/** The worker running the agent shut down (the SDK cancelled the activity, not the workflow). */
export const WORKER_STOPPED_ERROR = 'the worker running this execution shut down';
/** The execution was cancelled through the API. */
export const CANCELLED_ERROR = 'cancelled by request';
/** The run's agents host did not take it in time: its worker is down or does not serve its queue (docs/multi-host.md). */
export const hostDownError = (host: string, waited: string): string =>
  `the agents host ${host} did not take the run within ${waited}: is its agents worker running?`;
