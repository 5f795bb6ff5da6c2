import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import type { RowDataPacket } from 'mysql2/promise';
import { DEFAULT_LEASE_DIR, leaseClaimState } from '../../activities/agents/agent-users';
import { startStandInModel } from '../../test/support/stand-in-model';
import {
  agentStarts,
  FINAL_STATUSES,
  judgePhase,
  rankingJobProblem,
  rankingPositionsProblem,
  untilFinal,
  type PhaseFigures,
} from './checks';
import { faultSchedule, type Phase } from './fault-schedule';
import { strike, type Strike } from './injectors';
import { call, prepareFixture, read, submitLoad, submitProbe, type Fixture, type LoadShape, type PhaseLoad } from './load';
import { startFaultService, type FaultService } from './service';
import { startWatcher, type Watcher } from './watcher';

const run = promisify(execFile);

/**
 * The fault suite (docs/reliability.md): the service split by role on the real stack, the real CLI
 * against the stand-in model, a load through its public surfaces, and each fault struck at a seeded
 * moment of that load, alone and then two at once; after each phase, the checks of checks.ts; at the
 * end, the pipelines that waited through every fault are approved and must complete, the ranking
 * must hold every person, webhook deliveries and schedule firings must match their records, and no
 * agent process nor pool-user lease may be left.
 */

export type Form = 'short' | 'long';

export interface FormShape extends LoadShape {
  persons: number;
  slots: number;
  pairs: number;
  strikeWindowMs: [number, number];
  diskFullMs: number;
  /** How long after its last strike a phase's records have to be final. */
  boundMs: number;
}

export const FORMS: Record<Form, FormShape> = {
  short: {
    clients: 3,
    runsPerClient: 1,
    lines: 20,
    everyMs: 100,
    webhookCalls: 1,
    spreadMs: 3_000,
    ranking: false,
    persons: 20_000,
    slots: 3,
    pairs: 0,
    strikeWindowMs: [1_000, 5_000],
    diskFullMs: 4_000,
    boundMs: 240_000,
  },
  long: {
    clients: 10,
    runsPerClient: 2,
    lines: 60,
    everyMs: 100,
    webhookCalls: 4,
    spreadMs: 10_000,
    ranking: true,
    persons: 20_000,
    slots: 4,
    pairs: 5,
    strikeWindowMs: [2_000, 14_000],
    diskFullMs: 10_000,
    boundMs: 300_000,
  },
};

export interface SuiteOptions {
  seed: number;
  form: Form;
  log?: (line: string) => void;
}

export interface SuiteResult {
  seed: number;
  form: Form;
  phases: PhaseFigures[];
  violations: string[];
  /** What the end of the suite found: the waiting pipelines, the ranking, webhooks, schedule, leftovers. */
  final: {
    approvedPipelines: number;
    rankingPersons: number;
    webhookTriggerCount: number;
    webhookDeliveries: number;
    scheduleFirings: number;
    scheduleRecords: number;
  };
  seconds: number;
}

export async function runFaultSuite(options: SuiteOptions): Promise<SuiteResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`faults: ${line}\n`));
  const shape = FORMS[options.form];
  const started = Date.now();
  const schedule = faultSchedule({ seed: options.seed, pairs: shape.pairs, strikeWindowMs: shape.strikeWindowMs });
  log(`seed ${options.seed}, form ${options.form}: ${schedule.map((phase) => phase.faults.join('+')).join(', ')}`);

  const model = await startStandInModel();
  let service: FaultService | undefined;
  const watchers: Watcher[] = [];
  try {
    service = await startFaultService({ persons: shape.persons, log });
    const fixture = await prepareFixture(service, model, shape.slots);
    for (let i = 0; i < shape.clients; i += 1) {
      watchers.push(
        startWatcher(`faults-client-${i}`, {
          wsUrl: () => service!.wsUrl,
          readRecord: (id) => read(service!, `/api/executions/history/${id}`),
        }),
      );
    }
    const gated = await startGatedPipelines(service, fixture);
    log(`two pipeline runs wait for approval: ${gated.join(', ')}`);
    const session = await signIn(service);

    const phases: PhaseFigures[] = [];
    const violations: string[] = [];
    const deliveries: PhaseLoad['deliveries'] = [];
    for (const [index, phase] of schedule.entries()) {
      const verdict = await runPhase(service, fixture, watchers, shape, phase, index, log, session);
      phases.push(verdict.figures);
      deliveries.push(...verdict.deliveries);
      violations.push(...verdict.violations.map((violation) => `phase ${index + 1} (${phase.faults.join('+')}): ${violation}`));
      log(
        `phase ${index + 1} (${phase.faults.join('+')}): ${JSON.stringify(verdict.figures)}${verdict.violations.length > 0 ? `\n  ${verdict.violations.join('\n  ')}` : ''}`,
      );
    }
    const final = await finalChecks(service, fixture, gated, deliveries, violations, log);
    return { seed: options.seed, form: options.form, phases, violations, final, seconds: (Date.now() - started) / 1000 };
  } finally {
    for (const watcher of watchers) watcher.close();
    await service?.stop();
    await model.close();
  }
}

async function runPhase(
  service: FaultService,
  fixture: Fixture,
  watchers: Watcher[],
  shape: FormShape,
  phase: Phase,
  index: number,
  log: (line: string) => void,
  session: string,
): Promise<{ figures: PhaseFigures; violations: string[]; deliveries: PhaseLoad['deliveries'] }> {
  const since = new Date(Date.now() - 1_000);
  const ranking = shape.ranking || phase.faults.includes('ranking-worker-kill');
  const loading = submitLoad(service, fixture, watchers, { ...shape, ranking }, index + 1);
  const context = {
    roles: service.roles,
    agentStarts: () => agentStarts(service.startsFile),
    rankingStatus: async () => {
      const answer = await call(service, 'GET', '/api/v1/ranking/status');
      return answer.status === 200 ? answer.body : null;
    },
    dataMount: service.dataMount,
    diskFullMs: shape.diskFullMs,
    log,
  };
  const phaseStart = Date.now();
  const [from, to] = shape.strikeWindowMs;
  const strikes: Strike[] = await Promise.all(
    phase.faults.map(async (fault, i) => {
      const delayMs = phase.delaysMs[i]!;
      // The ranking job is over in seconds: its worker is killed once the job has scored a share drawn from the same seed, 10 % to 60 %.
      if (fault === 'ranking-worker-kill')
        return strike(fault, { ...context, rankingShare: 0.1 + (0.5 * (delayMs - from)) / Math.max(1, to - from) });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, phaseStart + delayMs - Date.now())));
      return strike(fault, { ...context, rankingShare: 0 });
    }),
  );
  const load = await loading;
  await submitProbe(service, fixture, load);
  const extra: string[] = [];
  if (phase.faults.includes('redis-restart')) await checkSessionAfterRedis(service, session, extra);
  const firingsBefore = await scheduleFiringsSince(service, fixture, since);
  const records = await untilFinal(service, load, fixture.schedule.id, since, firingsBefore, shape.boundMs);
  for (const watcher of watchers) await watcher.settle();
  // Temporal's list lags a firing by a moment (after its restart, longer): read until it shows what the records show, at most 30 s.
  const fromSchedule = records.filter((row) => row.source === 'schedule' && row.pipeline_execution_id === null).length;
  let firings = firingsBefore;
  for (const deadline = Date.now() + 30_000; firings !== fromSchedule && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    firings = await scheduleFiringsSince(service, fixture, since);
  }
  if (ranking) await rankingCompleted(service, extra);
  const verdict = judgePhase({
    faults: phase.faults,
    load,
    records,
    strikes,
    watchers,
    starts: agentStarts(service.startsFile),
    scheduleFirings: firings,
  });
  return { figures: verdict.figures, violations: [...verdict.violations, ...extra], deliveries: load.deliveries };
}

/** Two runs of the gated pipeline, waiting for approval before step 2 through every fault. */
async function startGatedPipelines(service: FaultService, fixture: Fixture): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const answer = await call(service, 'POST', `/api/pipelines/${fixture.gatedPipelineId}/execute`, { input: `gated ${i}` });
    if (answer.status !== 202) throw new Error(`gated pipeline: ${answer.status} ${JSON.stringify(answer.body)}`);
    ids.push(answer.body.executionId);
  }
  for (const id of ids)
    await until(
      `pipeline run ${id} waits for approval`,
      async () => (await read(service, `/api/executions/history/${id}`)).status === 'awaiting_approval',
      180_000,
    );
  return ids;
}

/** The panel's sign-in: a session cookie, as a person in a browser holds it. */
async function signIn(service: FaultService): Promise<string> {
  const response = await fetch(`${service.origin}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${encodeURIComponent((await import('./service')).FAULTS_TOKEN)}`,
    redirect: 'manual',
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 303 || !cookie) throw new Error(`sign-in: ${response.status}, no session cookie`);
  return cookie;
}

/**
 * Redis keeps no data: the panel's sessions live there, so a restart signs every panel user out
 * (decision, docs/reliability.md): the session must be refused with the panel's message, not served
 * nor answered 5xx, and the token keeps working.
 */
async function checkSessionAfterRedis(service: FaultService, cookie: string, violations: string[]): Promise<void> {
  // While the service's Redis client reconnects, a session cannot be checked: 503 (docs/orchestration-security.md), then the answer.
  const deadline = Date.now() + 60_000;
  let withCookie = await fetch(`${service.origin}/api/agents`, { headers: { cookie } });
  while (withCookie.status === 503 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    withCookie = await fetch(`${service.origin}/api/agents`, { headers: { cookie } });
  }
  if (withCookie.status !== 401)
    violations.push(`a session from before the Redis restart answered ${withCookie.status}, expected 401 (signed out)`);
  const withToken = await call(service, 'GET', '/api/agents');
  if (withToken.status !== 200) violations.push(`the token after the Redis restart answered ${withToken.status}`);
}

/** Firings of the schedule since `since`: the firing workflows Temporal started (each makes one record). */
async function scheduleFiringsSince(service: FaultService, fixture: Fixture, since: Date): Promise<number> {
  const query = `WorkflowType='scheduledAgentRunWorkflow' AND ScheduleId='${fixture.schedule.id}' AND StartTime >= '${since.toISOString()}'`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      let count = 0;
      for await (const _ of service.temporal.workflow.list({ query })) count += 1;
      return count;
    } catch (error) {
      if (attempt > 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function rankingCompleted(service: FaultService, violations: string[]): Promise<void> {
  const problem = await rankingJobProblem((route) => read(service, route), service.persons);
  if (problem !== null) violations.push(problem);
}

async function finalChecks(
  service: FaultService,
  fixture: Fixture,
  gated: string[],
  deliveries: PhaseLoad['deliveries'],
  violations: string[],
  log: (line: string) => void,
): Promise<SuiteResult['final']> {
  // The schedule's own cron (every 5 minutes) must not fire while the end is checked: a firing then is a record still open.
  const paused = await call(service, 'PUT', `/api/schedules/${fixture.schedule.id}`, { active: false });
  if (paused.status !== 200) violations.push(`pausing the schedule: ${paused.status} ${JSON.stringify(paused.body)}`);
  // The pipelines waited through every fault: still waiting, then complete once approved.
  for (const id of gated) {
    const record = await read(service, `/api/executions/history/${id}`);
    if (record.status !== 'awaiting_approval')
      violations.push(`gated pipeline run ${id} is ${record.status} after the faults, not awaiting_approval`);
    const approved = await call(service, 'POST', `/api/pipelines/${id}/approve`, {});
    if (approved.status !== 200) violations.push(`approving ${id}: ${approved.status} ${JSON.stringify(approved.body)}`);
  }
  let approvedPipelines = 0;
  for (const id of gated) {
    const record = await until(
      `pipeline run ${id} ends`,
      async () => {
        const view = await read(service, `/api/executions/history/${id}`);
        return FINAL_STATUSES.includes(view.status) ? view : null;
      },
      300_000,
    );
    if (record.status === 'completed') approvedPipelines += 1;
    else violations.push(`gated pipeline run ${id} ended ${record.status} after its approval: ${record.error}`);
  }

  // The ranking: every person once, positions 1..n.
  const ranking = await rankingPositionsProblem(service.pool, service.persons);
  const rankingPersons = ranking.persons;
  if (ranking.problem !== null) violations.push(ranking.problem);

  // Webhook deliveries counted once, each answered with a run of its own; any other run of the webhook is a start that failed (told to the sender as such).
  const [[hooks]] = await service.pool.query<RowDataPacket[]>(
    'SELECT w.trigger_count AS triggers, (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.counted) AS deliveries FROM webhooks w WHERE w.id = ?',
    [fixture.webhook.id],
  );
  const answered = new Set(deliveries.map((delivery) => delivery.executionId));
  const [webhookRuns] = await service.pool.query<RowDataPacket[]>(
    "SELECT id, status, error FROM executions WHERE webhook_id = ? AND source = 'webhook'",
    [fixture.webhook.id],
  );
  const others = webhookRuns.filter((row) => !answered.has(row.id));
  if (Number(hooks!.triggers) !== deliveries.length || Number(hooks!.deliveries) !== deliveries.length) {
    violations.push(`webhook: ${deliveries.length} deliveries accepted, triggerCount ${hooks!.triggers}, ${hooks!.deliveries} counted`);
  }
  if (answered.size !== deliveries.length)
    violations.push(`webhook: ${deliveries.length} deliveries answered ${answered.size} distinct runs`);
  for (const row of others)
    if (row.status !== 'error') violations.push(`webhook run ${row.id} answered to no delivery ended ${row.status}, not as a failed start`);

  // Nothing stuck: a firing that began just before the pause ends like any run, within the bound.
  const open = await openRecordsWithin(service, 120_000);
  if (open !== 0) violations.push(`${open} record(s) still open at the end`);

  // Schedule firings neither lost nor doubled: one record per firing workflow (Temporal's list lags a firing by a moment).
  let schedule = await scheduleFiringsAndRecords(service, fixture);
  for (const deadline = Date.now() + 30_000; schedule.firings !== schedule.records && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    schedule = await scheduleFiringsAndRecords(service, fixture);
  }
  const { firings: scheduleFirings, records: scheduleRecords } = schedule;
  if (scheduleRecords !== scheduleFirings)
    violations.push(`the schedule fired ${scheduleFirings} workflows and made ${scheduleRecords} records`);

  // Nothing left running.
  const leftovers = await agentLeftovers();
  if (leftovers.processes > 0) violations.push(`${leftovers.processes} process(es) of the agents' users left: ${leftovers.list}`);
  const leases = leaseClaims();
  if (leases.held.length > 0) violations.push(`pool users still leased by a live process with no run left: ${leases.held.join(', ')}`);
  log(`leases: none held; ${leases.stale} stale claim(s) of killed workers (ignored and removed by the next lease, docs/agent-process.md)`);
  log(
    `final: ${approvedPipelines} gated pipelines completed, ranking ${rankingPersons} persons, webhook ${deliveries.length} deliveries, ${webhookRuns.length} runs (${others.length} failed starts), schedule ${scheduleFirings} firings`,
  );
  return {
    approvedPipelines,
    rankingPersons,
    webhookTriggerCount: Number(hooks!.triggers),
    webhookDeliveries: deliveries.length,
    scheduleFirings,
    scheduleRecords,
  };
}

/** The schedule's firing workflows, as Temporal lists them, and the records they made. */
async function scheduleFiringsAndRecords(service: FaultService, fixture: Fixture): Promise<{ firings: number; records: number }> {
  let firings = 0;
  for await (const _ of service.temporal.workflow.list({
    query: `WorkflowType='scheduledAgentRunWorkflow' AND ScheduleId='${fixture.schedule.id}'`,
  }))
    firings += 1;
  const [[records]] = await service.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM executions WHERE schedule_id = ?', [
    fixture.schedule.id,
  ]);
  return { firings, records: Number(records!.n) };
}

/** Records still open once they all had `boundMs` to end (0 when they did). */
async function openRecordsWithin(service: FaultService, boundMs: number): Promise<number> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const [[open]] = await service.pool.query<RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM executions WHERE status IN ('queued', 'running', 'retrying', 'awaiting_approval')",
    );
    if (Number(open!.n) === 0 || Date.now() > deadline) return Number(open!.n);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Processes of the agents' pool users (group `agents`) still alive: an agent or a tool outliving its run. */
async function agentLeftovers(): Promise<{ processes: number; list: string }> {
  const { stdout } = await run('ps', ['-eo', 'pid=,group=,args=']).catch(() => ({ stdout: '' }));
  const lines = stdout.split('\n').filter((line) => line.trim().split(/\s+/)[1] === 'agents');
  return { processes: lines.length, list: lines.map((line) => line.trim().slice(0, 80)).join('; ') };
}

/**
 * The pool's lease claims, read as a lease reads them (activities/agents/agent-users.ts): with every
 * run ended, a live claim is a leaked lease; a stale one (its process killed) is ignored and removed
 * by the next lease.
 */
function leaseClaims(): { held: string[]; stale: number } {
  const held: string[] = [];
  let stale = 0;
  for (const file of fs.existsSync(DEFAULT_LEASE_DIR) ? fs.readdirSync(DEFAULT_LEASE_DIR) : []) {
    const claim = leaseClaimState(file);
    if (claim?.state === 'live') held.push(`${claim.user} (pid ${claim.pid})`);
    else if (claim?.state === 'stale') stale += 1;
  }
  return { held, stale };
}

async function until<T>(what: string, check: () => Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
