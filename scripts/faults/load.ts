import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { standInEnv, type StandInModel } from '../../test/support/stand-in-model';
import { agentScheduleId } from '../../temporal/agent-schedules';
import type { FaultService } from './service';
import { FAULTS_TOKEN } from './service';
import type { Watcher } from './watcher';

/**
 * The load of the fault suite (docs/reliability.md): agents that stream tagged lines to WebSocket
 * clients, pipelines of three steps, webhook deliveries, a schedule's firing and a ranking job, all
 * through the service's public surfaces as their users reach them.
 */

export interface Answer {
  status: number;
  body: any;
}

/** One call of the service with the token; a network failure (the API down) answers status 0. */
export async function call(
  service: Pick<FaultService, 'origin'>,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const response = await fetch(`${service.origin}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${FAULTS_TOKEN}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body: parsed };
  } catch {
    return { status: 0, body: null };
  }
}

/** A read that must get its answer: asked again while the API is down or answers 5xx. */
export async function read(service: Pick<FaultService, 'origin'>, route: string, timeoutMs = 300_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(service, 'GET', route);
    if (answer.status === 200) return answer.body;
    if (Date.now() > deadline) throw new Error(`GET ${route}: no answer within ${timeoutMs} ms (last status ${answer.status})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function created(service: FaultService, route: string, body: unknown): Promise<any> {
  const answer = await call(service, 'POST', route, body);
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`POST ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** What the load works with, made once before the faults. */
export interface Fixture {
  /** An agent per host: its runs go to host A or host B by their working directory. */
  agents: { a: string; b: string };
  pipelineId: string;
  /** A pipeline whose second step waits for a person. */
  gatedPipelineId: string;
  webhook: { id: string; token: string };
  schedule: { id: string; temporalId: string };
}

export async function prepareFixture(service: FaultService, model: StandInModel, slots: number): Promise<Fixture> {
  const settings = await call(service, 'PUT', '/api/settings', { maxConcurrent: slots });
  if (settings.status !== 200) throw new Error(`PUT /api/settings: ${settings.status} ${JSON.stringify(settings.body)}`);
  const agent = async (name: string, root: string) => {
    const made = await created(service, '/api/agents', {
      agent_name: `${name} ${randomUUID().slice(0, 8)}`,
      config: { maxTurns: 5, workingDirectory: path.join(root, name) },
    });
    const secrets = { ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0', FAULTS_STARTS_FILE: service.startsFile };
    for (const [name, value] of Object.entries(secrets)) await created(service, `/api/agents/${made.id}/secrets`, { name, value });
    return made.id as string;
  };
  const agents = { a: await agent('faults-a', service.roots.a), b: await agent('faults-b', service.roots.b) };
  const steps = (gated: boolean) =>
    [agents.a, agents.a, agents.a].map((agentId, index) => ({
      agentId,
      description: `step ${index + 1}`,
      inputTemplate: `stand-in:text step ${index + 1} {{input}}`,
      requiresApproval: gated && index === 1,
    }));
  const pipeline = async (name: string, gated: boolean) =>
    (
      await created(service, '/api/pipelines', {
        name: `${name} ${randomUUID().slice(0, 8)}`,
        description: '',
        workingDirectory: path.join(service.roots.a, name),
        steps: steps(gated),
      })
    ).id as string;
  const webhook = await created(service, '/api/webhooks', {
    name: `faults ${randomUUID().slice(0, 8)}`,
    targetType: 'agent',
    targetId: agents.a,
  });
  const schedule = await created(service, '/api/schedules', {
    agentId: agents.b,
    taskDescription: 'stand-in:text scheduled',
    cronExpression: '*/5 * * * *',
  });
  return {
    agents,
    pipelineId: await pipeline('faults-pipeline', false),
    gatedPipelineId: await pipeline('faults-gated', true),
    webhook: { id: webhook.id, token: webhook.token },
    schedule: { id: schedule.id, temporalId: agentScheduleId(schedule.id) },
  };
}

export interface LoadShape {
  clients: number;
  runsPerClient: number;
  lines: number;
  everyMs: number;
  webhookCalls: number;
  /** The load is submitted over this window from the phase's start. */
  spreadMs: number;
  ranking: boolean;
}

/** A run the load started and a client follows. */
export interface StartedRun {
  executionId: string;
  tag: string;
  lines: number;
  clientId: string;
}

/** What one phase's load submitted, and what the service accepted. */
export interface PhaseLoad {
  runs: StartedRun[];
  pipelineRuns: string[];
  /** Webhook deliveries: each delivered until accepted, with the same delivery id (as a Git host redelivers). */
  deliveries: Array<{ deliveryId: string; executionId: string; attempts: number }>;
  /** Runs started after the strikes were over, to see the service complete a run again (time to recover). */
  probes: string[];
  /** Submissions the service did not accept (no 202: the API down at that instant). */
  refused: number;
  scheduleTriggers: number;
  rankingJob: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function submitLoad(
  service: FaultService,
  fixture: Fixture,
  watchers: Watcher[],
  shape: LoadShape,
  phase: number,
): Promise<PhaseLoad> {
  const load: PhaseLoad = { runs: [], pipelineRuns: [], deliveries: [], probes: [], refused: 0, scheduleTriggers: 0, rankingJob: false };
  const started = Date.now();
  const at = (fraction: number) => sleep(Math.max(0, started + fraction * shape.spreadMs - Date.now()));

  const execution = async (watcher: Watcher, index: number) => {
    const tag = `p${phase}${watcher.clientId.replace(/[^a-z0-9]/gi, '')}r${index}`;
    const agentId = index % 2 === 0 ? fixture.agents.a : fixture.agents.b;
    const answer = await call(
      service,
      'POST',
      `/api/agents/${agentId}/execute`,
      { task: `stand-in:lines count=${shape.lines} every=${shape.everyMs} tag=${tag}`, instructions: '' },
      { 'x-client-id': watcher.clientId },
    );
    if (answer.status !== 202) {
      load.refused += 1;
      return;
    }
    watcher.follow(answer.body.executionId);
    load.runs.push({ executionId: answer.body.executionId, tag, lines: shape.lines, clientId: watcher.clientId });
  };
  const total = watchers.length * shape.runsPerClient;
  const jobs: Promise<void>[] = [];
  let n = 0;
  for (let round = 0; round < shape.runsPerClient; round += 1) {
    for (const watcher of watchers) {
      const index = n;
      jobs.push(at(index / total).then(() => execution(watcher, round * watchers.length + watchers.indexOf(watcher))));
      n += 1;
    }
  }
  jobs.push(
    at(0.1).then(async () => {
      const answer = await call(service, 'POST', `/api/pipelines/${fixture.pipelineId}/execute`, { input: `phase ${phase}` });
      if (answer.status === 202) load.pipelineRuns.push(answer.body.executionId);
      else load.refused += 1;
    }),
  );
  for (let i = 0; i < shape.webhookCalls; i += 1)
    jobs.push(
      at((i + 0.5) / shape.webhookCalls).then(() => deliver(service, fixture, load, `faults-${phase}-${i}-${randomUUID().slice(0, 8)}`)),
    );
  jobs.push(
    at(0.5).then(async () => {
      for (let attempt = 0; attempt < 120; attempt += 1) {
        try {
          await service.temporal.schedule.getHandle(fixture.schedule.temporalId).trigger();
          load.scheduleTriggers += 1;
          return;
        } catch {
          await sleep(1_000);
        }
      }
      throw new Error('the schedule could not be triggered within 120 s');
    }),
  );
  if (shape.ranking) {
    jobs.push(
      (async () => {
        for (let attempt = 0; attempt < 120; attempt += 1) {
          const answer = await call(service, 'POST', '/api/v1/ranking/processar', {});
          if (answer.status === 200 || answer.status === 202) {
            load.rankingJob = true;
            return;
          }
          await sleep(1_000);
        }
        throw new Error('the ranking job could not be started within 120 s');
      })(),
    );
  }
  await Promise.all(jobs);
  return load;
}

/** One webhook delivery, sent again with the same delivery id until the service accepts it (202, or 202 `duplicate`). */
async function deliver(service: FaultService, fixture: Fixture, load: PhaseLoad, deliveryId: string): Promise<void> {
  for (let attempt = 1; attempt <= 120; attempt += 1) {
    const answer = await call(
      service,
      'POST',
      `/hook/${fixture.webhook.token}`,
      { task: `stand-in:text hook ${deliveryId}` },
      { 'x-webhook-delivery': deliveryId },
    );
    if (answer.status === 202) {
      load.deliveries.push({ deliveryId, executionId: answer.body.executionId, attempts: attempt });
      return;
    }
    await sleep(1_000);
  }
  throw new Error(`webhook delivery ${deliveryId} not accepted within 120 attempts`);
}

/** A run started once the struck parts are back, sent until accepted: when it completes, the service has recovered. */
export async function submitProbe(service: FaultService, fixture: Fixture, load: PhaseLoad): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const answer = await call(service, 'POST', `/api/agents/${fixture.agents.a}/execute`, {
      task: 'stand-in:text probe',
      instructions: '',
    });
    if (answer.status === 202) {
      load.probes.push(answer.body.executionId);
      return;
    }
    await sleep(1_000);
  }
  throw new Error('no run accepted within 300 s after the strikes');
}
