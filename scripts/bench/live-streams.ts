import type { ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import type { AgentCliName } from '../../domain/agent-clis';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';
import type { StandInModel } from '../../test/support/stand-in-model';
import { standInSecretsFor } from '../../test/support/stand-in-model/cli-secrets';
import { CLAUDE_CLI, startApi, startService, stopService, waitForLine } from './services';

/**
 * What bench:live-output and bench:metrics share: an agents worker and an API running the real
 * coding-agent CLIs (Claude Code as AGENT_COMMAND; Codex CLI and Gemini CLI by their pinned packages'
 * binaries, the default CODEX_COMMAND / GEMINI_COMMAND) against the stand-in model, WebSocket clients
 * as the panel connects, and executions that stream `stand-in:lines` to them, each line's delay
 * measured on receipt.
 */

export interface Api {
  call(method: string, route: string, body?: unknown, clientId?: string): Promise<any>;
}

export function apiAt(base: string): Api {
  return {
    async call(method, route, body, clientId = 'bench') {
      const response = await fetch(`${base}${route}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-client-id': clientId },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },
  };
}

/** An agents worker and an API process (compiled), both with `env` and the real CLI as the agent command. */
export interface AgentServices {
  api: Api;
  /** The API's origin, e.g. http://127.0.0.1:port (its /metrics is there). */
  origin: string;
  wsBase: string;
  worker: ChildProcess;
  apiProcess: ChildProcess;
  stop(): Promise<void>;
}

export async function startAgentServices(env: Record<string, string> = {}): Promise<AgentServices> {
  const agentEnv = { AGENT_COMMAND: CLAUDE_CLI, ...env };
  const worker = startService('agents-worker', agentEnv);
  await waitForLine(worker, '"msg":"worker started"');
  const { process: apiProcess, base } = await startApi(agentEnv).catch(async (error: unknown) => {
    await stopService(worker);
    throw error;
  });
  const origin = base.replace(/\/api\/v1$/, '');
  return {
    api: apiAt(`${origin}/api`),
    origin,
    wsBase: origin.replace(/^http/, 'ws'),
    worker,
    apiProcess,
    async stop() {
      await stopService(apiProcess);
      await stopService(worker);
    },
  };
}

/**
 * What an agent of each CLI is created with besides the defaults: Claude Code's turn limit as before;
 * Codex CLI and Gemini CLI take no turn limit (0) and a model of their own API (the stand-in answers
 * any model name), as test/support/real-agents.ts creates them.
 */
const CLI_CONFIG: Record<AgentCliName, Record<string, unknown>> = {
  'claude-code': { maxTurns: 5 },
  codex: { cli: 'codex', model: 'gpt-5.5', maxTurns: 0 },
  gemini: { cli: 'gemini', model: 'gemini-2.5-flash', maxTurns: 0 },
};

/** An agent running `cli` (Claude Code by default) whose runs reach the stand-in: its address and key are the agent's secrets (the CLI's environment). */
export async function benchAgent(api: Api, model: StandInModel, name: string, cli: AgentCliName = 'claude-code'): Promise<string> {
  const agent = await api.call('POST', '/agents', { agent_name: `${name} ${Date.now()}`, config: CLI_CONFIG[cli] });
  for (const [secret, value] of Object.entries(standInSecretsFor(cli, model))) {
    await api.call('POST', `/agents/${agent.id}/secrets`, { name: secret, value });
  }
  return agent.id as string;
}

export interface LiveClient {
  /** When each message type was first received, and every message. */
  received: Array<{ at: number; message: any }>;
  /** Resolves at the client's final message (FINAL_EXECUTION_MESSAGE_TYPES). */
  finished: Promise<void>;
  close(): void;
}

export function openClient(wsBase: string, clientId: string, onOutput?: (content: string, at: number) => void): Promise<LiveClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${wsBase}/?clientId=${encodeURIComponent(clientId)}`);
    const received: LiveClient['received'] = [];
    let finish!: () => void;
    const finished = new Promise<void>((done) => (finish = done));
    socket.on('message', (data) => {
      const at = Date.now();
      const message = JSON.parse(data.toString()) as { type: string; data?: { type?: string; content?: string } };
      received.push({ at, message });
      if (message.type === 'connected') resolve({ received, finished, close: () => socket.close() });
      if (message.type === 'execution_output' && message.data?.type === 'chunk') onOutput?.(message.data.content ?? '', at);
      if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) finish();
    });
    socket.once('error', reject);
  });
}

export interface StreamOptions {
  /** Executions streaming at once, each to its own client. */
  streams: number;
  /** Lines per execution. */
  chunks: number;
  /** Gap between one execution's lines. */
  intervalMs: number;
  /** Makes the lines' tags, clients and agent unique to one call (default: `run<intervalMs>`). */
  label?: string;
  /** The CLI the executions' agent runs (default Claude Code). */
  cli?: AgentCliName;
}

/** What `streamAtOnce` measured. */
export interface StreamResult {
  /** Each line: from the stand-in writing it (its text delta) to its client receiving it, in ms. */
  delays: number[];
  /**
   * Each execution's message: from the stand-in writing its last delta (the message's end: the
   * stand-in closes the message in the same write) to its client receiving that last line, in ms.
   * For a CLI that prints whole messages (Codex CLI) this is the message's delay; for one that streams
   * deltas, its last line's.
   */
  messageDelays: number[];
  /**
   * Each execution: from its execute request to the stand-in writing its first delta, in ms: the
   * worker's and the CLI's start until the CLI asks the model, then the stand-in's first gap
   * (`intervalMs`); not what the CLI does with the text after.
   */
  starts: number[];
  seconds: number;
  failed: FailedRun[];
}

/**
 * `streams` executions at once, each printing `chunks` lines `intervalMs` apart to its own client; every
 * line's delay and every message's. A received `execution_output` may hold several lines (Codex CLI's
 * whole message): each of its lines counts, received when it arrived.
 */
export async function streamAtOnce(
  api: Api,
  model: StandInModel,
  sentAt: Map<string, number>,
  wsBase: string,
  options: StreamOptions,
): Promise<StreamResult> {
  const { streams, chunks, intervalMs } = options;
  const label = options.label ?? `run${intervalMs}`;
  const clientName = options.label === undefined ? `${intervalMs}` : options.label;
  const agentId = await benchAgent(api, model, `bench streaming ${options.label ?? `${intervalMs}ms`}`, options.cli);
  const delays: number[] = [];
  const messageDelays: number[] = [];
  const tag = (i: number) => `${label}x${i}`;
  // The stand-in's last line of each run (scenarios: `<tag> line <n> of <n>`).
  const lastLine = (i: number) => `${tag(i)} line ${chunks} of ${chunks}`;
  const clients = await Promise.all(
    Array.from({ length: streams }, (_, i) =>
      openClient(wsBase, `bench-client-${clientName}-${i}`, (content, at) => {
        for (const line of content.split('\n')) {
          const sent = sentAt.get(line);
          if (sent === undefined || !line.startsWith(`${tag(i)} `)) continue;
          delays.push(at - sent);
          if (line === lastLine(i)) messageDelays.push(at - sent);
        }
      }),
    ),
  );
  const started = Date.now();
  // The requests go out together: `started` is each one's.
  await Promise.all(
    clients.map((_, i) =>
      api.call(
        'POST',
        `/agents/${agentId}/execute`,
        { task: `stand-in:lines count=${chunks} every=${intervalMs} tag=${tag(i)}` },
        `bench-client-${clientName}-${i}`,
      ),
    ),
  );
  await Promise.all(clients.map((client) => client.finished));
  const seconds = (Date.now() - started) / 1000;
  const failed = clients.flatMap((client) => notCompleted(client.received.map(({ message }) => message)));
  for (const client of clients) client.close();
  const starts = clients.flatMap((_, i) => {
    const first = sentAt.get(`${tag(i)} line 1 of ${chunks}`);
    return first === undefined ? [] : [first - started];
  });
  return { delays, messageDelays, starts, seconds, failed };
}

/** A run that did not complete, named by the final message its client received. */
export interface FailedRun {
  executionId: string;
  error: string;
}

export function notCompleted(messages: any[]): FailedRun[] {
  return messages
    .filter((message) => message.type === 'execution_error' || message.type === 'execution_canceled')
    .map((message) => ({ executionId: String(message.executionId), error: String(message.data?.error ?? message.status) }));
}

export async function waitFor<T>(read: () => T | Promise<T>, done: (value: T) => boolean, pollMs: number): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export async function waitUntilIdle(api: Api): Promise<void> {
  await waitFor(
    () => api.call('GET', '/executions/active') as Promise<unknown[]>,
    (active) => active.length === 0,
    200,
  );
}
