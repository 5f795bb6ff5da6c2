import WebSocket from 'ws';
import { withTimeout } from '../../lib/timeout';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import { lookOverAnswer } from './answer-language';

export interface SocketProbe {
  socket: WebSocket;
  messages: unknown[];
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  nextMessage(): Promise<unknown>;
}

/** Opens a WebSocket and records what it receives; rejects if the handshake is refused. */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<SocketProbe> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const messages: unknown[] = [];
    const waiters: Array<(message: unknown) => void> = [];
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as unknown;
      // A person reads these too (the panel's terminal and toasts): pt-BR, like the HTTP answers.
      lookOverAnswer(`WebSocket ${(message as { type?: string }).type ?? 'message'}`, message);
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolveClose) => {
      socket.on('close', (code, reason) => resolveClose({ code, reason: reason.toString() }));
    });
    socket.once('unexpected-response', (_request, response) => reject(new Error(`handshake refused: ${response.statusCode}`)));
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        messages,
        closed,
        nextMessage: () =>
          messages.length > 0 ? Promise.resolve(messages.shift()) : new Promise((resolveMessage) => waiters.push(resolveMessage)),
      }),
    );
  });
}

/** The panel's socket for `clientId` on the service at `serverUrl`, once the server greeted it with `connected`. */
export async function connectClient(serverUrl: string, clientId: string): Promise<SocketProbe> {
  const probe = await openSocket(`${serverUrl.replace(/^http/, 'ws')}/?clientId=${encodeURIComponent(clientId)}`);
  expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId });
  return probe;
}

/** Every message of one execution up to its final one (complete or error), skipping other executions' messages. */
export async function untilFinal(probe: SocketProbe, executionId: string, timeoutMs = 90_000): Promise<any[]> {
  const received: any[] = [];
  for (;;) {
    const message: any = await withTimeout(probe.nextMessage(), timeoutMs, `messages of ${executionId}`);
    if (message.executionId !== executionId) continue;
    received.push(message);
    if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) return received;
  }
}

/** Every message about pipeline `pipelineId` up to (and with) the first of type `last`, skipping other pipelines' messages. */
export async function untilPipelineMessage(probe: SocketProbe, pipelineId: string, last: string, timeoutMs = 90_000): Promise<any[]> {
  const received: any[] = [];
  for (;;) {
    const message: any = await withTimeout(probe.nextMessage(), timeoutMs, `${last} of ${pipelineId}`);
    if (message.pipelineId !== pipelineId) continue;
    received.push(message);
    if (message.type === last) return received;
  }
}

/**
 * The messages of a pipeline run paused before step 1 because its agent's daily budget is spent
 * (docs/budgets.md): the `awaiting_approval` status, then `pipeline_approval_required` waiting for the
 * budget with the previous output and the budget, and no step started.
 */
export function expectBudgetPause(
  paused: any[],
  run: { pipelineId: string; executionId: string; previousOutput: string; agentId: string; limitUsd: number },
): void {
  expect(paused.find((message) => message.type === 'pipeline_status')).toMatchObject({
    status: 'awaiting_approval',
    stepIndex: 0,
    waitingFor: 'budget',
  });
  expect(paused.at(-1)).toMatchObject({
    pipelineId: run.pipelineId,
    executionId: run.executionId,
    stepIndex: 0,
    previousOutput: run.previousOutput,
    waitingFor: 'budget',
    budget: { scope: 'agent', agentId: run.agentId, limitUsd: run.limitUsd },
  });
  expect(paused.some((message) => message.type === 'pipeline_step_start')).toBe(false);
}

/** A handshake the server refused before the upgrade: its HTTP status, headers and JSON body. */
export interface RefusedHandshake {
  status: number;
  authenticate: string | null;
  body: unknown;
}

/** Attempts a handshake that must be refused; rejects when a socket opens instead. */
export function refusedHandshake(url: string, headers: Record<string, string> = {}): Promise<RefusedHandshake> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const authenticate = response.headers['www-authenticate'];
        resolve({
          status: response.statusCode ?? 0,
          authenticate: typeof authenticate === 'string' ? authenticate : null,
          body: text ? JSON.parse(text) : null,
        });
      });
    });
    socket.once('error', reject);
    socket.once('open', () => {
      socket.close();
      reject(new Error(`the handshake to ${url} was accepted`));
    });
  });
}
