import fs from 'node:fs';
import path from 'node:path';
import { config as baseConfig, type Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { startAgentsWorker } from '../../workers/agents';
import type { QueueWorker } from '../../workers/queue-worker';
import { startStandInModel, type StandInModel } from './stand-in-model';
import { standInSecretsFor } from './stand-in-model/cli-secrets';
import { jsonCall } from './json-api';
import { createPanelAgent } from './panel-agents';
import { requireRoot } from './root';
import { startTestServer, type TestServer } from './server';

/**
 * What the suites that run agents with the real Claude Code CLI share (docs/claude-code-cli.md): the
 * stand-in model, the service, an agents worker whose agent command is the pinned CLI, and agents whose
 * secrets point the CLI at the stand-in.
 */

const CLAUDE_CLI = path.join(repoRoot, 'node_modules/.bin/claude');

/** A started service and how to end it: a plain test server, or a browser suite's panel session. */
export interface Served {
  server: TestServer;
  close(): Promise<void>;
}

export interface RealAgentsOptions<S extends Served> {
  /** Names the suite's working area, a directory under the first working-directory root. */
  name: string;
  /** Starts the service; a plain test server by default. */
  serve?: () => Promise<S>;
  /** Changes to the worker's orchestration settings (the agent command is always the CLI). */
  orchestration?: Partial<Config['orchestration']>;
  /** The `maxConcurrent` setting put before the tests; left as it is when absent. */
  maxConcurrent?: number;
  /** Runs once the service is up, before the worker starts (which reconciles the schedules' rows with Temporal). */
  beforeWorker?: (server: TestServer) => Promise<void>;
}

export interface RealAgents<S extends Served = Served> {
  model: StandInModel;
  service: S;
  server: TestServer;
  /** This suite's directory for agents' working directories; removed by `close`. */
  workArea: string;
  /** createStandInAgent on this suite's service, stand-in and working area. */
  standInAgent(
    name: string,
    config?: Record<string, unknown>,
    fields?: Record<string, unknown>,
    secrets?: Record<string, string>,
  ): Promise<{ id: string; name: string }>;
  /** Stops the worker and starts another like it. */
  restartWorker(): Promise<void>;
  /** Stops the worker (for good: `close` then has nothing to stop). */
  stopWorker(): Promise<void>;
  /** Stops the worker, then the stand-in and the service; removes the working area. */
  close(): Promise<void>;
}

/** Where a stand-in agent is made: the service, the stand-in its runs reach, the directory its working directory goes under. */
export interface StandInTarget {
  serverUrl: string;
  model: Pick<StandInModel, 'url'>;
  workArea: string;
}

/** The stand-in's model for each CLI's agents, and what the panel's form would otherwise send for Claude Code. */
const STAND_IN_CLI_CONFIG: Record<string, Record<string, unknown>> = {
  'claude-code': { maxTurns: 5 },
  codex: { model: 'gpt-5.5', maxTurns: 0 },
  gemini: { model: 'gemini-2.5-flash', maxTurns: 0 },
};

/**
 * An agent created with the panel's body, named `<name> <8 hex>`, working in `workArea/<name>`;
 * `config` and `fields` (description, tags, status) override the defaults; `config.cli` picks the CLI
 * (Claude Code by default) and with it the stand-in model's name. Its secrets point that CLI at the
 * stand-in with no retries (standInSecretsFor), with `secrets` besides: its runs reach the stand-in.
 */
export async function createStandInAgent(
  target: StandInTarget,
  name: string,
  config: Record<string, unknown> = {},
  fields: Record<string, unknown> = {},
  secrets: Record<string, string> = {},
): Promise<{ id: string; name: string }> {
  const cli = typeof config.cli === 'string' ? config.cli : 'claude-code';
  const created = await createPanelAgent(target.serverUrl, name, {
    fields,
    config: {
      systemPrompt: '',
      workingDirectory: path.join(target.workArea, name),
      allowedTools: '',
      permissionMode: '',
      retryOnFailure: false,
      maxRetries: 3,
      delegateTo: '',
      ...STAND_IN_CLI_CONFIG[cli],
      ...config,
    },
  });
  const call = (method: string, route: string, body?: unknown) => jsonCall(target.serverUrl, method, route, body);
  for (const [secret, value] of Object.entries({ ...standInSecretsFor(cli, target.model), ...secrets })) {
    expect((await call('POST', `/api/agents/${created.id}/secrets`, { name: secret, value })).status).toBe(201);
  }
  return created;
}

/** Starts the stand-in, the service and an agents worker with the real CLI; the caller's afterAll calls `close`. */
export async function startRealAgents<S extends Served = Served>(options: RealAgentsOptions<S>): Promise<RealAgents<S>> {
  requireRoot(options.name);
  const workArea = path.join(baseConfig.orchestration.workdirRoots[0]!, `test-${options.name}-${process.pid}-${Date.now()}`);
  const serve =
    options.serve ??
    (async () => {
      const server = await startTestServer();
      return { server, close: () => server.close() } as unknown as S;
    });
  const workerConfig: Config = {
    ...baseConfig,
    orchestration: { ...baseConfig.orchestration, ...options.orchestration, agentCommand: CLAUDE_CLI },
  };

  let model: StandInModel | undefined;
  let service: S | undefined;
  let worker: QueueWorker | undefined;
  const close = async () => {
    await worker?.stop();
    await model?.close();
    await service?.close();
    fs.rmSync(workArea, { recursive: true, force: true });
  };
  try {
    model = await startStandInModel();
    service = await serve();
    const { server } = service;
    // Records left active by an interrupted earlier run would hold slots.
    await server.resources.database.pool.query(
      "UPDATE executions SET status = 'error', finished_at = NOW(3), error = 'deixado por uma execução anterior dos testes' WHERE status IN ('queued', 'running', 'retrying', 'awaiting_approval')",
    );
    const call = (method: string, route: string, body?: unknown) => jsonCall(server.url, method, route, body);
    if (options.maxConcurrent !== undefined) {
      const answer = await call('PUT', '/api/settings', { maxConcurrent: options.maxConcurrent });
      if (answer.status !== 200) throw new Error(`PUT /api/settings answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    await options.beforeWorker?.(server);
    worker = await startAgentsWorker(workerConfig, logger);
    const stand = model;
    return {
      model: stand,
      service,
      server,
      workArea,
      standInAgent: (name, config, fields, secrets) =>
        createStandInAgent({ serverUrl: server.url, model: stand, workArea }, name, config, fields, secrets),
      async stopWorker() {
        const stopping = worker;
        worker = undefined;
        await stopping?.stop();
      },
      async restartWorker() {
        const stopping = worker;
        worker = undefined;
        await stopping?.stop();
        worker = await startAgentsWorker(workerConfig, logger);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
