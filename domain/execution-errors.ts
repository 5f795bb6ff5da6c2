/**
 * The errors an agent execution's record ends with when the agent itself did not fail
 * (docs/agent-executions.md), in the panel's language (pt-BR: it shows them to a person). Plain
 * constants in domain/, the lowest layer: the workflow, the activities and the use cases all import
 * them, none from another's folder.
 */

/** The worker running the agent vanished: the run activity timed out on its heartbeat. */
export const WORKER_LOST_ERROR = 'o worker que executava esta execução parou (sem heartbeat por 30 s)';
/** The worker running the agent shut down (the SDK cancelled the activity, not the workflow). */
export const WORKER_STOPPED_ERROR = 'o worker que executava esta execução foi desligado';
/** The execution was cancelled through the API. */
export const CANCELLED_ERROR = 'cancelada a pedido do usuário';
/** The run's agents host did not take it in time: its worker is down or does not serve its queue (docs/multi-host.md). */
export const hostDownError = (host: string, waitedMinutes: number): string =>
  `a máquina de agentes ${host} não assumiu a execução em ${waitedMinutes} minutos: o worker de agentes dela está rodando?`;
/** Temporal refused or could not be reached when the record's workflow was to start: nothing will run it. */
export const ENGINE_UNAVAILABLE_ERROR = 'a execução não pôde ser iniciada (motor de workflows indisponível)';
/** The failure type of a run stopped at its time limit (domain/run-limits.ts): a failure like any other, for retryOnFailure too. */
export const AGENT_TIMEOUT_FAILURE = 'AgentTimeout';
/**
 * The failure type of a delivery of the run that found its attempt's agent already started by an earlier
 * delivery whose worker died (db/executions-store.ts, claimAgentStart): the record ends WORKER_LOST_ERROR.
 */
export const AGENT_ALREADY_STARTED_FAILURE = 'AgentAlreadyStarted';
