import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { RowDataPacket } from 'mysql2';
import { CANCELLED_ERROR } from '../../domain/execution-errors';
import { budgetExhaustedText } from '../../domain/budgets';
import { timedOutError } from '../../domain/run-limits';
import { utcDay } from '../../domain/utc-day';
import { agentIsolation, type AgentUser } from '../../lib/agent-isolation';
import { config as baseConfig } from '../../lib/config';
import { processRunning } from '../../scripts/process-state';
import { agentGroupId, sleeperPidIn } from '../support/agent-workspace';
import { endedExecution, jsonCall, notificationOf } from '../support/json-api';
import { startRealAgents, type RealAgents } from '../support/real-agents';
import { STAND_IN_TEXT, type ClientProcess, type RecordedRequest, type ScriptedReply } from '../support/stand-in-model';
import { enqueueGemini, geminiFunctionResponsesOf, geminiPromptsOf, shellOutputOf } from '../support/stand-in-model/gemini';
import { commandOutput, enqueueResponses, responsesPromptsOf, responsesToolOutputsOf } from '../support/stand-in-model/openai-responses';
import { until } from '../support/waiting';
import { connectClient, expectBudgetPause, untilFinal, untilPipelineMessage, type SocketProbe } from '../support/websocket';

/**
 * Issue 42 §3, "everything that works for Claude works for each": the limits and guards of a run, for
 * a Codex CLI agent and a Gemini CLI agent, with the real pinned CLIs run by the service's agents
 * worker against the stand-in model (docs/agent-clis.md, docs/codex-cli.md, docs/gemini-cli.md). The
 * same rules the Claude Code suites assert: a cancel through the API ends the record `canceled` and
 * every process of the run (agent-executions.test.ts); a failed run retried through the API, and an
 * agent's retryOnFailure after a scripted failure (agent-follow-ups.test.ts); the time limit
 * (run-limits.test.ts); the daily budget counting the cost the service priced from the CLI's tokens,
 * refusing the next run and pausing a pipeline (budgets.test.ts); the pool user, the emptied HOME and
 * the network guard (agent-isolation.test.ts, agent-network.test.ts).
 *
 * Lean on two cores: every run of both CLIs is started at once in `beforeAll` (each a "flow" that
 * gathers what it saw); each test awaits its flow and asserts.
 */

jest.setTimeout(240_000);

const CLIS = ['codex', 'gemini'] as const;
type Cli = (typeof CLIS)[number];

const MODEL: Record<Cli, string> = { codex: 'gpt-5.5', gemini: 'gemini-2.5-flash' };
/** The requests each CLI sends the stand-in (docs/codex-cli.md, docs/gemini-cli.md "What it sends"). */
const API_PATH: Record<Cli, string> = {
  codex: '/v1/responses',
  gemini: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
};
/**
 * A `stand-in:text` run's cost as the service prices it (neither CLI reports one): the stand-in's usage,
 * 10 input and 8 output tokens (30 characters / 4), at lib/model-prices.json's prices per token:
 * gpt-5.5 5e-6 in, 3e-5 out; gemini-2.5-flash 3e-7 in, 2.5e-6 out.
 */
const TEXT_RUN_COST: Record<Cli, number> = { codex: 0.00029, gemini: 0.000023 };
/** An agent's daily budget below what one `stand-in:text` run of either CLI costs. */
const TINY_BUDGET = 0.00001;
/** The time-limit agents' `config.timeout`: well past each CLI's start, below Codex's 30 s wait on a running command. */
const LIMIT_MS = 20_000;
const RETRY_DELAY_MS = 1_000;

/**
 * How the record says each CLI's failure on the stand-in's 500, asked once (docs/codex-cli.md,
 * docs/gemini-cli.md "Errors"): Codex's own sentence, exit 1; Gemini's API error, exit 244 (the
 * status modulo 256), then the end of its standard error, where it says its one attempt failed, without
 * its YOLO notice and its stack trace (gemini.ts failureStderrOf).
 */
const GEMINI_API_500 =
  '{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}';
const FAILED_500: Record<Cli, unknown> = {
  codex: 'codex terminou com o código 1: We’re currently experiencing high demand, which may cause temporary errors.',
  gemini: [
    `gemini terminou com o código 244: [API Error: ${GEMINI_API_500}]`,
    `stderr: Attempt 1 failed: ${GEMINI_API_500}. Max attempts reached`,
    `Error when talking to Gemini API _ApiError: ${GEMINI_API_500}`,
  ].join('\n'),
};

let agents: RealAgents;
const call = (method: string, route: string, body?: unknown, clientId?: string) =>
  jsonCall(agents.server.url, method, route, body, clientId);
const probes: SocketProbe[] = [];
let control: net.Server;
let controlTarget: string;

/** The latest user text of a request of `cli`'s API (Codex sends the prompt with its trailing newline). */
const promptOf = (cli: Cli, request: RecordedRequest): string =>
  (cli === 'codex' ? responsesPromptsOf(request.body) : geminiPromptsOf(request.body)).at(-1) ?? '';

/** What the CLI's shell tool printed, as the CLI sent it back to the model in this request (none: null). */
function toolOutputIn(cli: Cli, request: RecordedRequest): string | null {
  if (cli === 'codex') {
    const [result] = responsesToolOutputsOf(request.body);
    return result === undefined ? null : commandOutput(result.text).output;
  }
  const [result] = geminiFunctionResponsesOf(request.body);
  return result === undefined ? null : shellOutputOf(result.output);
}

/** The stand-in's requests of `cli`'s API whose latest prompt holds `marker`, in arrival order. */
const requestsWith = (cli: Cli, marker: string): RecordedRequest[] =>
  agents.model.requests.filter((request) => request.path === API_PATH[cli] && promptOf(cli, request).includes(marker));

/** Queues a scripted reply of `cli`'s API for the requests whose prompt holds `marker` (and `also`). */
function script(cli: Cli, marker: string, reply: ScriptedReply, also: (request: RecordedRequest) => boolean = () => true): void {
  const when = (request: RecordedRequest) => promptOf(cli, request).includes(marker) && also(request);
  (cli === 'codex' ? enqueueResponses : enqueueGemini)({ ...reply, when });
}

async function connect(): Promise<{ probe: SocketProbe; clientId: string }> {
  const clientId = `painel-${randomUUID()}`;
  const probe = await connectClient(agents.server.url, clientId);
  probes.push(probe);
  return { probe, clientId };
}

async function execute(agentId: string, task: string, clientId?: string): Promise<string> {
  const answer = await call('POST', `/api/agents/${agentId}/execute`, { task, instructions: '' }, clientId);
  expect(answer).toMatchObject({ status: 202, body: { executionId: expect.any(String), status: 'queued' } });
  return answer.body.executionId as string;
}

const ended = (executionId: string) => endedExecution(agents.server.url, executionId, 180_000);

/** An agent of `cli` whose runs reach the stand-in (its secrets: stand-in-model/cli-secrets.ts standInSecretsFor), working in workArea/<name>. */
async function cliAgent(cli: Cli, name: string, config: Record<string, unknown> = {}) {
  const agent = await agents.standInAgent(`${name} ${cli}`, { cli, model: MODEL[cli], maxTurns: 0, allowedTools: '', ...config });
  return { ...agent, workdir: path.join(agents.workArea, `${name} ${cli}`) };
}

/** The process that sent the run's first request to the stand-in: the CLI itself, as /proc showed it (`recordClients`). */
async function cliProcessOf(cli: Cli, marker: string): Promise<ClientProcess> {
  const request = await until(
    `the ${cli} CLI asks the stand-in`,
    async () => requestsWith(cli, marker)[0],
    (found) => found?.client != null,
    120_000,
  );
  return request!.client!;
}

/** /proc/<pid>/stat's parent, process group and session; null when gone. */
function statOf(pid: number): { ppid: number; pgid: number; sid: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid) };
  } catch {
    return null;
  }
}

/** The process and every descendant it has now (its tools' shells and what they started), sorted. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat !== null) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let at = 0; at < tree.length; at += 1) tree.push(...(children.get(tree[at]!) ?? []));
  return tree.sort((a, b) => a - b);
}

/** The run's processes while its tool sleeps: the CLI, its tool's shell (pid written by the tool) and the rest of the tree. */
async function sleepingRun(cli: Cli, marker: string, workdir: string) {
  const sleeper = await sleeperPidIn(workdir, 120_000);
  const client = await cliProcessOf(cli, marker);
  return { cliPid: client.pid, sleeper, sleeperSession: statOf(sleeper)?.sid ?? null, tree: processTree(client.pid) };
}

const query = async <T extends RowDataPacket>(sql: string, values: unknown[]) =>
  (await agents.server.resources.database.pool.query<T[]>(sql, values))[0];
const recordsOf = async (agentId: string) =>
  Number((await query<RowDataPacket>('SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?', [agentId]))[0]!.n);
/** What the agent's records started today cost (docs/budgets.md: what its budget counts). */
const spentBy = async (agentId: string) =>
  Number(
    (
      await query<RowDataPacket>(
        "SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM executions WHERE agent_id = ? AND kind = 'agent' AND started_at >= ?",
        [agentId, utcDay(new Date()).start],
      )
    )[0]!.spent,
  );

/** Each run of one CLI, started at once: what it saw, for the tests to assert. */
function startFlows(cli: Cli) {
  /** A run cancelled through the API while its tool's shell sleeps. */
  const cancel = async () => {
    const agent = await cliAgent(cli, 'cancela');
    const marker = randomUUID();
    const executionId = await execute(agent.id, `Espere. stand-in:sleep seconds=300 ${marker}`);
    const run = await sleepingRun(cli, marker, agent.workdir);
    const before = (await call('GET', `/api/executions/history/${executionId}`)).body;
    const answer = await call('POST', `/api/agents/${agent.id}/cancel/${executionId}`);
    const done = await ended(executionId);
    // The record may be final a moment before the worker's activity ended the process tree (as for Claude Code).
    const left = await until(
      'every process of the cancelled run ends',
      async () => run.tree.filter(processRunning),
      (pids) => pids.length === 0,
      15_000,
    );
    const again = await call('POST', `/api/agents/${agent.id}/cancel/${executionId}`);
    return { agent, executionId, run, before, answer, done, left, again };
  };

  /** A run failed by the stand-in's scripted 500, retried through the API: the budget agent's (its retry spends the budget). */
  const retried = async () => {
    const agent = await cliAgent(cli, 'orcamento', { dailyBudgetUsd: TINY_BUDGET });
    const marker = randomUUID();
    const task = `stand-in:text ${marker}`;
    script(cli, marker, { kind: 'error', status: 500 });
    const failed = await ended(await execute(agent.id, task));
    const answer = await call('POST', `/api/executions/${failed.id}/retry`);
    const retry = answer.status === 200 ? await ended(answer.body.executionId) : null;
    return { agent, task, failed, answer, retry, statuses: requestsWith(cli, marker).map((request) => request.status) };
  };
  const retriedFlow = retried();

  /** The budget agent once its retry spent the budget: a run refused, a pipeline paused before its step, then rejected. */
  const budget = async () => {
    const { agent, failed, retry } = await retriedFlow;
    const spent = await spentBy(agent.id);
    const text = budgetExhaustedText(
      { scope: 'agent', agentId: agent.id, agentName: agent.name, limitUsd: TINY_BUDGET, spentUsd: spent },
      utcDay(new Date()).end,
    );
    const before = await recordsOf(agent.id);
    const refused = {
      execute: await call('POST', `/api/agents/${agent.id}/execute`, { task: 'stand-in:text', instructions: '' }),
      continue: await call('POST', `/api/agents/${agent.id}/continue`, { sessionId: retry?.sessionId, message: 'E então?' }),
      retry: await call('POST', `/api/executions/${failed.id}/retry`),
    };
    const after = await recordsOf(agent.id);

    const created = await call('POST', '/api/pipelines', {
      name: `orcamento ${cli} ${randomUUID().slice(0, 8)}`,
      description: '',
      workingDirectory: path.join(agents.workArea, `pipeline ${cli}`),
      steps: [{ agentId: agent.id, inputTemplate: 'stand-in:text\n{{input}}', description: '', requiresApproval: false }],
    });
    expect(created.status).toBe(201);
    const pipelineId = created.body.id as string;
    const { probe, clientId } = await connect();
    const started = await call('POST', `/api/pipelines/${pipelineId}/execute`, { input: 'entrada' }, clientId);
    expect(started).toMatchObject({ status: 202, body: { status: 'started' } });
    const runId = started.body.executionId as string;
    const paused = await untilPipelineMessage(probe, pipelineId, 'pipeline_approval_required', 120_000);
    const pausedRecord = (await call('GET', `/api/executions/history/${runId}`)).body;
    const rejected = await call('POST', `/api/pipelines/${runId}/reject`);
    const rejection = await untilPipelineMessage(probe, pipelineId, 'pipeline_rejected', 120_000);
    const rejectedRecord = (await call('GET', `/api/executions/history/${runId}`)).body;
    return { agent, spent, text, refused, before, after, pipelineId, runId, paused, pausedRecord, rejected, rejection, rejectedRecord };
  };

  /** An agent with retryOnFailure whose first attempt the stand-in fails (500), the second completing. */
  const retryOnFailure = async () => {
    const agent = await cliAgent(cli, 'tenta', { retryOnFailure: true, maxRetries: 2 });
    const marker = randomUUID();
    script(cli, marker, { kind: 'error', status: 500 });
    const { probe, clientId } = await connect();
    const executionId = await execute(agent.id, `stand-in:text ${marker}`, clientId);
    const received = await untilFinal(probe, executionId, 180_000);
    const record = await ended(executionId);
    return { agent, executionId, received, record, statuses: requestsWith(cli, marker).map((request) => request.status) };
  };

  /** A run whose tool sleeps past the agent's time limit. */
  const timeLimit = async () => {
    const agent = await cliAgent(cli, 'limite', { timeout: LIMIT_MS });
    const marker = randomUUID();
    const { probe, clientId } = await connect();
    const executionId = await execute(agent.id, `stand-in:sleep seconds=600 ${marker}`, clientId);
    const run = await sleepingRun(cli, marker, agent.workdir);
    const received = await untilFinal(probe, executionId, 180_000);
    // Looked at the moment the client hears the end: the record says so only once the run's processes are gone.
    const aliveAtEnd = run.tree.filter(processRunning);
    const record = await ended(executionId);
    const report = fs.readFileSync(path.join(baseConfig.orchestration.dataDir, 'reports', record.reportFile), 'utf8');
    const notification = await notificationOf(agents.server.url, executionId);
    return { agent, executionId, run, received, aliveAtEnd, record, report, notification };
  };

  /** A run whose shell tool probes who it runs as, its HOME and the network (the stand-in scripts the call). */
  const isolation = async () => {
    const agent = await cliAgent(cli, 'isolado');
    const marker = randomUUID();
    script(
      cli,
      marker,
      { kind: 'tool_use', name: 'Bash', input: { command: probeCommand(), description: 'Probe' } },
      (request) => toolOutputIn(cli, request) === null,
    );
    const done = await ended(await execute(agent.id, `Probe the isolation ${marker}`));
    const [first, second] = requestsWith(cli, marker);
    const client = first?.client ?? null;
    const user = pool().find((candidate) => candidate.uid === client?.uid) ?? null;
    const output = second === undefined ? null : toolOutputIn(cli, second);
    return {
      agent,
      done,
      client,
      user,
      output,
      seen: Object.fromEntries(
        (output ?? '')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]),
      ) as Record<string, string>,
      // Planted by the tool; the release of the run's user empties its HOME.
      plantedLeft: user === null ? null : fs.existsSync(path.join(user.home, 'planted.txt')),
      homeMode: user === null ? null : fs.statSync(user.home).mode & 0o777,
    };
  };

  const handled = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => undefined); // awaited by its test; never an unhandled rejection meanwhile
    return promise;
  };
  return {
    cancel: handled(cancel()),
    retried: handled(retriedFlow),
    budget: handled(budget()),
    retryOnFailure: handled(retryOnFailure()),
    timeLimit: handled(timeLimit()),
    isolation: handled(isolation()),
  };
}

const pool = (): AgentUser[] => {
  const isolation = agentIsolation();
  if (isolation.mode !== 'user-pool') throw new Error(`no pool of agent users (${isolation.reason})`);
  return [...isolation.users];
};

const temporalPort = baseConfig.temporal.address.split(':').pop()!;
const elasticsearchPort = new URL(baseConfig.elasticsearch.url).port;
/** The stack's services on loopback, which the agents' group is refused (scripts/stack/agent-network.sh). */
const GUARDED = {
  MariaDB: `127.0.0.1:${baseConfig.mysql.port}`,
  Redis: `127.0.0.1:${baseConfig.redis.port}`,
  Elasticsearch: `127.0.0.1:${elasticsearchPort}`,
  Temporal: `127.0.0.1:${temporalPort}`,
};

/**
 * The isolation probe as one shell command: `uid <id>`, `home <HOME>`, `holds <what the HOME holds>`,
 * a file planted in the HOME, then per target Bash's /dev/tcp: `<target> connected`, or why not.
 */
function probeCommand(): string {
  const targets = [...Object.values(GUARDED), controlTarget, new URL(agents.model.url).host];
  // No command substitution: Gemini CLI's shell tool blocks `$(…)` and backquotes ("Command injection detected").
  return [
    'printf "uid "; id -u',
    'echo "home $HOME"',
    'printf "holds "; ls -A "$HOME" | sort | paste -sd " " -',
    'echo planted > "$HOME/planted.txt"',
    // Bash's /dev/tcp: "<target> connected", or the end of bash's complaint (its reason) after the target.
    ...targets.map((target) => {
      const [host, port] = target.split(':');
      return `{ timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' && echo '${target} connected'; } 2>&1 | tail -n 1 | sed 's|^.*: |${target} |'`;
    }),
  ].join('; ');
}

let flows: Record<Cli, ReturnType<typeof startFlows>>;

beforeAll(async () => {
  agents = await startRealAgents({
    name: 'agent-clis-limits',
    maxConcurrent: 12,
    orchestration: { followUps: { retryDelayMs: RETRY_DELAY_MS, delegationDepthMax: 3 } },
  });
  agents.model.recordClients();
  // Any other loopback port stays open to an agent (agent-network.test.ts): the control beside the guarded ones.
  control = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  controlTarget = `127.0.0.1:${(control.address() as net.AddressInfo).port}`;
  flows = { codex: startFlows('codex'), gemini: startFlows('gemini') };
}, 120_000);

afterAll(async () => {
  // Every flow ends (each of its waits is bounded) before what it uses is closed, whatever the tests saw.
  await Promise.allSettled(Object.values(flows ?? {}).flatMap((flow) => Object.values(flow)));
  for (const probe of probes) probe.socket.terminate();
  // A process of a run left behind (a failed test) is ended by the next lease of its pool user.
  await new Promise((resolve) => (control ? control.close(resolve) : resolve(undefined)));
  await agents?.close();
}, 240_000);

describe.each(CLIS)('a %s agent', (cli) => {
  it('is cancelled through the API: the record ends canceled, and every process of the run is gone, its tool’s shell too', async () => {
    const { agent, executionId, run, before, answer, done, left, again } = await flows[cli].cancel;
    expect(before).toMatchObject({ status: 'running', cli });
    // The tool's shell was the CLI's: a descendant, leading a session of its own (docs/codex-cli.md,
    // docs/gemini-cli.md "Cancel"/"Its processes"), which the group's SIGTERM does not reach; the
    // release of the run's pool user ends it.
    expect(run.tree).toEqual(expect.arrayContaining([run.cliPid, run.sleeper]));
    expect(run.sleeperSession).toBe(run.sleeper);
    expect(answer).toMatchObject({ status: 200, body: { cancelled: true } });
    expect(done).toMatchObject({ status: 'canceled', error: CANCELLED_ERROR, cli, reportFile: expect.any(String) });
    expect(left).toEqual([]);
    expect(again).toMatchObject({
      status: 404,
      body: { error: `Execução ${executionId} do agente ${agent.id} não encontrada ou já finalizada` },
    });
  });

  it('retries a failed run through the API: a new record with the same task, run again by the same CLI', async () => {
    const { failed, answer, retry, task, statuses } = await flows[cli].retried;
    expect(failed).toMatchObject({ status: 'error', cli, task, error: FAILED_500[cli] });
    expect(answer).toMatchObject({ status: 200, body: { success: true, message: 'Execução reiniciada', executionId: expect.any(String) } });
    expect(retry).toMatchObject({
      source: 'retry',
      parentExecutionId: failed.id,
      task,
      workingDirectory: failed.workingDirectory,
      cli,
      model: MODEL[cli],
      status: 'completed',
      result: STAND_IN_TEXT,
      costUsd: TEXT_RUN_COST[cli],
      error: null,
    });
    // The failed run asked once (its CLI's retries are off), the retry once.
    expect(statuses).toEqual([500, 200]);
  });

  it('retries a failed run on its own with retryOnFailure: execution_retry with the reason, the second attempt completes', async () => {
    const { agent, executionId, received, record, statuses } = await flows[cli].retryOnFailure;
    const retry = received.find((message) => message.type === 'execution_retry');
    expect(retry).toMatchObject({
      executionId,
      agentId: agent.id,
      attempt: 1,
      maxRetries: 2,
      nextRetryIn: RETRY_DELAY_MS / 1000,
      reason: FAILED_500[cli],
    });
    expect(received.filter((message) => message.type === 'execution_started')).toHaveLength(2);
    expect(received.filter((message) => message.type === 'execution_retry')).toHaveLength(1);
    expect(received.at(-1)).toMatchObject({ type: 'execution_complete', status: 'completed', data: { result: STAND_IN_TEXT } });
    expect(record).toMatchObject({ status: 'completed', cli, attempt: 2, error: null, result: STAND_IN_TEXT, costUsd: TEXT_RUN_COST[cli] });
    expect(statuses).toEqual([500, 200]);
  });

  it('stops a run at the agent’s time limit: the record, the client, the report and the notification say so, its processes gone', async () => {
    const { agent, executionId, run, received, aliveAtEnd, record, report, notification } = await flows[cli].timeLimit;
    const expected = timedOutError(LIMIT_MS);
    expect(expected).toBe('a execução excedeu o tempo limite de 20 s e foi encerrada');
    expect(run.tree).toEqual(expect.arrayContaining([run.cliPid, run.sleeper]));
    expect(received.at(-1)).toMatchObject({ type: 'execution_error', executionId, status: 'error', data: { error: expected } });
    // The record says so only once every process of the run is gone: the CLI and the tool it ran.
    expect(aliveAtEnd).toEqual([]);
    expect(record).toMatchObject({ status: 'error', error: expected, attempt: 1, cli });
    expect(report).toContain(expected);
    expect(notification).toMatchObject({ title: 'Execução falhou', message: `${agent.name}: ${expected}` });
  });

  it('counts the priced cost of its runs in its daily budget: past it, a run is refused with 409 and a pipeline pauses before its step', async () => {
    const { agent, spent, text, refused, before, after, pipelineId, runId, paused, pausedRecord, rejected, rejection, rejectedRecord } =
      await flows[cli].budget;
    // Spent: the completed retry's cost, priced by the service from the CLI's tokens (the failed run cost nothing).
    expect(spent).toBe(TEXT_RUN_COST[cli]);
    expect(text).toBe(
      `O orçamento diário do agente ${agent.name} de US$ 0.00001 foi atingido: US$ ${TEXT_RUN_COST[cli]} gastos hoje; ` +
        `renova em ${utcDay(new Date()).end.toISOString()} (00:00 UTC)`,
    );
    const refusal = { status: 409, body: { error: text } };
    expect(refused.execute).toEqual(refusal);
    expect(refused.continue).toEqual(refusal);
    expect(refused.retry).toEqual(refusal);
    expect(after).toBe(before);

    expectBudgetPause(paused, { pipelineId, executionId: runId, previousOutput: text, agentId: agent.id, limitUsd: TINY_BUDGET });
    expect(pausedRecord).toMatchObject({ status: 'awaiting_approval' });
    expect(rejected).toEqual({ status: 200, body: { rejected: true } });
    expect(rejection.at(-1)).toMatchObject({ type: 'pipeline_rejected', executionId: runId });
    expect(rejectedRecord).toMatchObject({ status: 'rejected', error: 'rejeitado no passo 1' });
  });

  it('runs as a pool user in an emptied HOME, and its shell tool cannot reach the stack’s ports, only the stand-in and other ports', async () => {
    const { done, client, user, output, seen, plantedLeft, homeMode } = await flows[cli].isolation;
    expect(done).toMatchObject({ status: 'completed', cli, result: 'OK' });
    // The CLI process, as /proc showed it while it asked the stand-in (agent-isolation.test.ts).
    expect(client).not.toBeNull();
    expect(client!.uid).not.toBe(0);
    expect(user).not.toBeNull();
    expect(user!.name).toMatch(/^agentrun\d+$/);
    expect(client!.gid).toBe(agentGroupId());
    expect(client!.groups).toEqual([agentGroupId()]);
    expect(client!.env).toMatchObject({ HOME: user!.home, USER: user!.name, LOGNAME: user!.name });
    expect(client!.umask).toBe('0007');
    expect(client!.noNewPrivs).toBe(true);
    expect(homeMode).toBe(0o700);
    // What its shell tool printed (sent back to the model): the same user, the same HOME holding only
    // what the lease wrote and the CLI made in this run.
    expect(output).not.toBeNull();
    expect(seen.uid).toBe(String(client!.uid));
    expect(seen.home).toBe(user!.home);
    // `.tmp`: the run's private TMPDIR (agent-isolation.test.ts); `.codex` / `.gemini`: the CLI's own
    // (its sessions and state; Gemini's settings, written by the lease: docs/gemini-cli.md).
    expect(seen.holds).toBe(`.${cli} .tmp`);
    // What the run planted in its HOME went with it.
    expect(plantedLeft).toBe(false);
    // The network guard: the stack's services refused, any other loopback port (the stand-in's, a control) open.
    expect(Object.fromEntries(Object.entries(GUARDED).map(([name, target]) => [name, seen[target]]))).toEqual(
      Object.fromEntries(Object.keys(GUARDED).map((name) => [name, 'Connection refused'])),
    );
    expect(seen[controlTarget]).toBe('connected');
    expect(seen[new URL(agents.model.url).host]).toBe('connected');
  });
});
