import type { AgentHostEntry } from './agent-hosts';

/**
 * The texts a person reads about runs, in the panel's language (pt-BR; docs/errors.md, "Language of
 * the messages"): the errors a run's record ends with (the toast, the terminal, the notification, the
 * history) and the WebSocket handshake's refusals. One catalogue, so test/unit/run-messages.test.ts
 * can look over every text for English. Pure: values are interpolated as they are (names, ids, paths,
 * git's or the isolation check's own message).
 *
 * A record's error is shown after the panel's own words ("Erro na execução: …", "Erro no passo N: …"),
 * so it starts in lower case, like the record errors of domain/execution-errors.ts (re-exported here,
 * their values unchanged: stored records and failure classifications compare them). A `{"error"}`
 * body (the handshake refusals) is a message of its own: capital letter, like /api's.
 */

export { CANCELLED_ERROR, ENGINE_UNAVAILABLE_ERROR, hostDownError, WORKER_LOST_ERROR, WORKER_STOPPED_ERROR } from './execution-errors';

// ---- Record errors: the run's machinery ----

/** The push of a repository run was refused (git's message as it came). */
export const pushRefusedError = (repo: string, gitMessage: string): string =>
  `o envio para o repositório "${repo}" foi recusado: ${gitMessage}`;

/** The bundle fetched into the mirror is not the commit just made. */
export const bundleMismatchError = (received: string, commit: string): string =>
  `o pacote levou o commit ${received}, não o commit feito (${commit})`;

/** A failed push, saying where the commit stays. */
export const commitKeptError = (pushError: string, commit: string, dir: string): string =>
  `${pushError} (o commit ${commit.slice(0, 7)} continua na cópia de trabalho ${dir})`;

/** The pipeline run's final push cannot run git on this machine (the isolation check's reason). */
export const gitCannotRunError = (reason: string): string => `o git não pode rodar nesta máquina: ${reason}`;

/** A host's state as a person reads it in noLiveHostError. */
function hostStateOf(host: AgentHostEntry): string {
  if (!host.live) return 'sem sinal há mais de um minuto';
  return host.draining ? 'ativa, encerrando' : 'ativa';
}

/** No live agents host holds the run's working directory: what each registered host holds and whether it is alive. */
export function noLiveHostError(workingDirectory: string, hosts: readonly AgentHostEntry[]): string {
  const known =
    hosts.length === 0
      ? 'nenhuma máquina de agentes está registrada'
      : `máquinas de agentes: ${hosts.map((host) => `${host.name} (${hostStateOf(host)}: ${host.roots.join(', ')})`).join('; ')}`;
  return `nenhuma máquina de agentes ativa atende ao diretório de trabalho ${workingDirectory} (${known})`;
}

/** A record that names no agent (its agent was deleted and the record kept without it). */
export const recordWithoutAgentError = (executionId: string): string => `a execução ${executionId} não tem agente`;

/** The agent of a record was deleted before its run started. */
export const agentGoneError = (agentId: string): string => `o agente ${agentId} não existe mais`;

/** The pipeline of a run was deleted before the run started. */
export const pipelineGoneError = (pipelineId: string | null): string => `o pipeline ${pipelineId ?? ''} não existe mais`;

/** The step (numbered from 1) is no longer in its pipeline. */
export const stepGoneError = (step: number, pipelineId: string | null): string =>
  `o passo ${step} do pipeline ${pipelineId ?? ''} não existe mais`;

/** The step's record (numbered from 1) is gone. */
export const stepRecordGoneError = (step: number): string => `o registro do passo ${step} não existe mais`;

/** The agent of a step (numbered from 1) was deleted. */
export const stepAgentGoneError = (agentId: string, step: number): string => `o agente ${agentId} do passo ${step} não existe mais`;

/** The agent of a step (numbered from 1) is inactive. */
export const stepAgentInactiveError = (agentName: string, step: number): string => `o agente "${agentName}" do passo ${step} está inativo`;

/** The final statuses a step may end with besides `completed`, as the panel names them. */
const STEP_END_LABELS: Readonly<Record<string, string>> = {
  error: 'com erro',
  canceled: 'cancelado',
  rejected: 'rejeitado',
};

/** A step (numbered from 1) ended without completing and without an error of its own. */
export const stepEndedError = (step: number, status: string): string =>
  `o passo ${step} terminou ${STEP_END_LABELS[status] ?? `com o status ${status}`}`;

/** A record that failed without an error of its own: the final message's text. */
export const RUN_FAILED_ERROR = 'a execução falhou';
/** A record cancelled without an error of its own: the final message's text. */
export const RUN_CANCELED_ERROR = 'a execução foi cancelada';

/** The error a final message carries: the record's own, else the text of its status (null: completed). */
export function finalErrorOf(status: string, error: string | null): string | null {
  if (error !== null || status === 'completed') return error;
  return status === 'canceled' ? RUN_CANCELED_ERROR : RUN_FAILED_ERROR;
}

/** No AGENT_SECRETS_KEY: the agent's secrets cannot be read (lib/secret-box.ts, SecretsKeyMissingError). */
export const SECRETS_KEY_MISSING_ERROR =
  'os segredos dos agentes não estão disponíveis: defina AGENT_SECRETS_KEY (64 caracteres hexadecimais) para gravá-los e lê-los';

/** The same, as an API's `{"error"}` answers it (services/errors.ts). */
export const SECRETS_KEY_MISSING_MESSAGE = `O${SECRETS_KEY_MISSING_ERROR.slice(1)}`;

// ---- Hints added to a CLI's failure (AgentCli.failureHint), in parentheses after its own words ----

/** The model refused the CLI's credentials, or it got none: which variables give them (`keys`), and where that is told. */
export const credentialsHint = (keys: string, doc: string): string =>
  `o modelo recusou as credenciais: defina ${keys} no ambiente do serviço ou como segredo do agente (${doc})`;

/** The agent's turn limit was reached (a CLI that ends a run there as a failure). */
export const TURN_LIMIT_HINT = 'o limite de turnos do agente (config.maxTurns) foi atingido: aumente-o, ou use 0 para nenhum';

// ---- The WebSocket handshake's refusals: `{"error"}` bodies (docs/websocket.md) ----

export const HANDSHAKE_REFUSALS = {
  tokenRequired: 'Autenticação necessária: envie o parâmetro token ou Authorization: Bearer <token>',
  tokenInvalid: 'Token inválido',
  /** With the panel's sign-in: nothing presented, or a session cookie that names no live session. */
  credentialRequired: 'Autenticação necessária: envie o parâmetro token, Authorization: Bearer <token> ou entre em /sign-in',
  sessionInvalid: 'Sessão expirada ou encerrada: entre novamente em /sign-in',
  sessionsUnavailable: 'A sessão não pode ser verificada agora (Redis indisponível)',
  originRefused: 'Origem não permitida (CORS_ORIGINS)',
  hostRefused: 'Host não permitido (ALLOWED_HOSTS)',
  tooManySockets: 'Conexões abertas demais a partir deste endereço (WEBSOCKET_MAX_SOCKETS_PER_CLIENT)',
  noSocketHere: 'Nenhum WebSocket neste caminho: conecte-se a / ou /ws',
  internal: 'Erro interno',
} as const;
