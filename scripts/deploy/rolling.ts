import fs from 'node:fs';
import path from 'node:path';
import type { RowDataPacket } from 'mysql2/promise';
import { WORKER_STOPPED_ERROR } from '../../domain/execution-errors';
import { standInEnv } from '../../test/support/stand-in-model';
import { agentStarts, FINAL_STATUSES, judgePhase, rankingJobProblem, rankingPositionsProblem, untilFinal } from '../faults/checks';
import type { PhaseLoad, StartedRun } from '../faults/load';
import { judgeRunLines } from '../faults/run-lines';
import { startWatcher, type Watcher } from '../faults/watcher';
import { HOSTS, STARTS_FILE, type Cluster, type Host, type Member, type Restart } from './cluster';
import { startProber } from './lb-client';
import { DEPLOY_LOG_DIR, IN_CONTAINER } from './platform';

/**
 * The deploy test's load and rolling restart (docs/deploy-test.md). Through the load balancer: agent
 * runs of the real CLI against the stand-in model, streaming tagged lines to WebSocket clients that
 * catch up by sequence after a reconnect (the fault suite's watcher); a ranking job; a pipeline
 * waiting for approval; a steady prober. Meanwhile every container is replaced, one at a time, as a
 * rolling deploy does; before each stop a run is streaming (on the stopped agents worker's own host for
 * an agents worker). Then the fault suite's checks (scripts/faults/checks.ts) and this test's own.
 */

export const SHAPE = {
  /** Each run streams `lines` lines `everyMs` apart: 6 s, so a run is running when a container stops. */
  lines: 30,
  everyMs: 200,
  clients: 3,
  /** maxConcurrent: the two hosts' loops, the run started before each stop, the pipeline's step. */
  slots: 4,
  persons: 20_000,
  /** Records must be final this long after the last restart. */
  boundMs: 240_000,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Fixture {
  agents: Record<Host, string>;
  gatedPipelineId: string;
}

export async function prepareFixture(cluster: Cluster): Promise<Fixture> {
  const { lb } = cluster;
  const created = async (route: string, body: unknown): Promise<any> => {
    const answer = await lb.call('POST', route, body);
    if (answer.status !== 201 && answer.status !== 200) throw new Error(`POST ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const settings = await lb.call('PUT', '/api/settings', { maxConcurrent: SHAPE.slots });
  if (settings.status !== 200) throw new Error(`PUT /api/settings: ${settings.status} ${JSON.stringify(settings.body)}`);
  const agent = async (host: Host) => {
    const made = await created('/api/agents', {
      agent_name: `${host} agent`,
      config: { maxTurns: 5, permissionMode: 'bypassPermissions', workingDirectory: `${cluster.platform.workRoot(host)}/${host}-agent` },
    });
    const secrets = { ...standInEnv(cluster.model), CLAUDE_CODE_MAX_RETRIES: '0', FAULTS_STARTS_FILE: STARTS_FILE };
    for (const [name, value] of Object.entries(secrets)) await created(`/api/agents/${made.id}/secrets`, { name, value });
    return made.id as string;
  };
  const agents = { 'deploy-a': await agent('deploy-a'), 'deploy-b': await agent('deploy-b') };
  const pipeline = await created('/api/pipelines', {
    name: 'deploy gated',
    description: '',
    workingDirectory: `${cluster.platform.workRoot('deploy-a')}/deploy-gated`,
    steps: [1, 2, 3].map((step) => ({
      agentId: agents['deploy-a'],
      description: `step ${step}`,
      inputTemplate: `stand-in:text step ${step} {{input}}`,
      requiresApproval: step === 2,
    })),
  });
  return { agents, gatedPipelineId: pipeline.id as string };
}

/** The secret files an agents worker holds (platform.ts writes them), as its container sees them. */
export const WORKER_SECRETS = [
  'mysql-password',
  'redis-password',
  'elasticsearch-api-key',
  'auth-token',
  'agent-secrets-key',
  'temporal-client.key',
];

export interface SecretProbe {
  host: Host;
  status: string;
  output: string;
}

/**
 * On each agents host, a run whose model asks for one Bash tool call: `cat` of every secret file its
 * worker was given (the stand-in's read-files scenario). What the run's record says the tool printed.
 */
export async function probeSecrets(cluster: Cluster, fixture: Fixture): Promise<SecretProbe[]> {
  const task = `stand-in:read-files\n\nArquivos de contexto:\n${WORKER_SECRETS.map((file) => `- ${IN_CONTAINER.secrets}/${file} (${file})`).join('\n')}`;
  return Promise.all(
    HOSTS.map(async (host) => {
      const answer = await cluster.lb.call('POST', `/api/agents/${fixture.agents[host]}/execute`, { task, instructions: '' });
      if (answer.status !== 202)
        throw new Error(`the secret probe on ${host} was not accepted: ${answer.status} ${JSON.stringify(answer.body)}`);
      const record = await untilRecordFinal(cluster, answer.body.executionId, 180_000);
      return { host, status: record.status as string, output: String(record.output ?? '') };
    }),
  );
}

/** The values of those files (the test's root-owned copies), to show that none reached a run's output. */
export function secretValues(cluster: Cluster): string[] {
  return WORKER_SECRETS.map((file) => fs.readFileSync(path.join(cluster.platform.mounts.rootSecrets, file), 'utf8').trim());
}

async function untilRecordFinal(cluster: Cluster, executionId: string, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await cluster.lb.read(`/api/executions/history/${executionId}`);
    if (FINAL_STATUSES.includes(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`run ${executionId} still ${record.status} after ${timeoutMs} ms`);
    await sleep(1_000);
  }
}

export interface RestartFigures {
  name: string;
  role: string;
  /** SIGTERM until the container exited. */
  drainMs: number;
  /** SIGTERM until its /readyz answered 503 (null: never seen). */
  notReadyAfterMs: number | null;
  /** SIGTERM until HAProxy had taken it out (APIs only). */
  lbOutAfterMs: number | null;
  exitCode: number;
  /** The new container's start until its /readyz answered 200. */
  startToReadyMs: number;
  /** SIGTERM until the new one was ready. */
  totalMs: number;
}

export interface DeployFigures {
  runs: { accepted: number; completed: number; notAccepted: number; probes: number; pipelineSteps: number };
  /** The runs' tagged lines: written by the model, shown by their clients (once each), lost, doubled. */
  lines: { expected: number; shown: number; lost: number; doubled: number; liveChunks: number; catchUps: number; reconnections: number };
  restarts: RestartFigures[];
  longestDrainMs: number;
  lb: { requests: number; refused: number; refusedDuringApiRestarts: number; proberRequests: number };
  ranking: { jobs: number; persons: number; expected: number };
  pipeline: { status: string; steps: string[] };
  seconds: { clusterStart: number; rollingRestart: number; checks: number };
}

export interface DeployResult {
  figures: DeployFigures;
  violations: string[];
}

/** Every container, one at a time: the ranking workers (a ranking job running), the agents workers (their runs running), the APIs. */
const ORDER: Array<(member: Member) => boolean> = [
  (member) => member.spec.name === 'deploy-ranking-1',
  (member) => member.spec.name === 'deploy-ranking-2',
  (member) => member.spec.name === 'deploy-agents-a',
  (member) => member.spec.name === 'deploy-agents-b',
  (member) => member.spec.name === 'deploy-api-1',
  (member) => member.spec.name === 'deploy-api-2',
];

export async function rollingRestart(cluster: Cluster, fixture: Fixture, log: (line: string) => void): Promise<DeployResult> {
  const { lb, platform } = cluster;
  const since = new Date(Date.now() - 1_000);
  const violations: string[] = [];
  const watchers: Watcher[] = Array.from({ length: SHAPE.clients }, (_, i) =>
    startWatcher(`deploy-client-${i}`, {
      wsUrl: () => lb.wsUrl,
      readRecord: (id) => lb.read(`/api/executions/history/${id}`),
    }),
  );
  const prober = startProber(lb);
  const load: PhaseLoad = { runs: [], pipelineRuns: [], deliveries: [], probes: [], refused: 0, scheduleTriggers: 0, rankingJob: false };
  const restarts: Restart[] = [];
  const lbOut = new Map<string, number>();
  let loading = true;
  let loops: Array<Promise<void>> = [];
  let rankingJobs = 0;
  try {
    // The pipeline waits for its approval through every restart.
    const gated = await lb.call('POST', `/api/pipelines/${fixture.gatedPipelineId}/execute`, { input: 'deploy' });
    if (gated.status !== 202) throw new Error(`gated pipeline: ${gated.status} ${JSON.stringify(gated.body)}`);
    const gatedId = gated.body.executionId as string;
    load.pipelineRuns.push(gatedId);
    for (const deadline = Date.now() + 180_000; (await lb.read(`/api/executions/history/${gatedId}`)).status !== 'awaiting_approval';) {
      if (Date.now() > deadline) throw new Error(`pipeline run ${gatedId} did not reach awaiting_approval within 180 s`);
      await sleep(1_000);
    }
    log(`pipeline run ${gatedId} waits for approval`);

    let count = 0;
    const startRun = async (host: Host): Promise<StartedRun | null> => {
      count += 1;
      const watcher = watchers[count % watchers.length]!;
      const tag = `d${count}${host.slice(-1)}`;
      const answer = await lb.call(
        'POST',
        `/api/agents/${fixture.agents[host]}/execute`,
        { task: `stand-in:lines count=${SHAPE.lines} every=${SHAPE.everyMs} tag=${tag}`, instructions: '' },
        { 'x-client-id': watcher.clientId },
      );
      if (answer.status !== 202) {
        load.refused += 1;
        return null;
      }
      watcher.follow(answer.body.executionId);
      const run = { executionId: answer.body.executionId as string, tag, lines: SHAPE.lines, clientId: watcher.clientId };
      load.runs.push(run);
      return run;
    };
    /** Until the run's client shows a few of its lines: its agent is running. */
    const streaming = async (run: StartedRun) => {
      const watcher = watchers.find((candidate) => candidate.clientId === run.clientId)!;
      for (const deadline = Date.now() + 120_000; ;) {
        const view = watcher.views().find((candidate) => candidate.executionId === run.executionId);
        if (view && view.lines.length >= 3) return;
        if (Date.now() > deadline) throw new Error(`run ${run.executionId} showed no line within 120 s`);
        await sleep(100);
      }
    };

    // A run in flight on each host all along: the next one starts when the last one is final.
    loops = HOSTS.map(async (host) => {
      while (loading) {
        const run = await startRun(host);
        if (run === null) await sleep(1_000);
        else await untilRecordFinal(cluster, run.executionId, SHAPE.boundMs);
      }
    });

    const rollingStarted = Date.now();
    const order = ORDER.map((pick) => cluster.members.find(pick)!);
    for (const [index, member] of order.entries()) {
      const host = member.host ?? HOSTS[index % HOSTS.length]!;
      const run = await startRun(host);
      if (run !== null) await streaming(run);
      if (member.role === 'ranking-worker') {
        // A ranking job scoring when each ranking worker stops: a new one once the last one has ended.
        let previous = await lb.read('/api/v1/ranking/status');
        for (const deadline = Date.now() + 120_000; previous.em_execucao; previous = await lb.read('/api/v1/ranking/status')) {
          if (Date.now() > deadline) throw new Error('the ranking job still running after 120 s');
          await sleep(250);
        }
        const job = await lb.call('POST', '/api/v1/ranking/processar', {});
        if (job.status !== 200 && job.status !== 202)
          throw new Error(`the ranking job was not started: ${job.status} ${JSON.stringify(job.body)}`);
        load.rankingJob = true;
        rankingJobs += 1;
        for (const deadline = Date.now() + 60_000; ;) {
          const status = await lb.read('/api/v1/ranking/status');
          if (status.iniciado_em !== previous.iniciado_em && (status.processados > 0 || status.estado === 'concluido')) break;
          if (Date.now() > deadline) throw new Error(`the ranking job processed nothing within 60 s: ${JSON.stringify(status)}`);
          await sleep(100);
        }
      }
      const ranking = member.role === 'ranking-worker' ? await lb.read('/api/v1/ranking/status') : null;
      // An API: when HAProxy takes it out, read from its stats socket while it stops.
      let watching = member.role === 'api';
      const lbWatch = (async () => {
        const from = Date.now();
        while (watching) {
          const states: Record<string, string> = await cluster.haproxy.states().catch(() => ({}));
          const state = states[member.spec.name];
          if (state !== undefined && state !== 'UP' && !lbOut.has(member.spec.name)) lbOut.set(member.spec.name, Date.now() - from);
          await sleep(25);
        }
      })();
      let restart: Restart;
      try {
        restart = await cluster.restart(member);
      } finally {
        watching = false;
        await lbWatch;
      }
      restarts.push(restart);
      log(
        `${member.spec.name}: SIGTERM, /readyz 503 after ${restart.stop.notReadyAt === null ? 'never' : `${restart.stop.notReadyAt - restart.stop.stoppedAt} ms`}, ` +
          `exited ${restart.stop.exitCode} after ${restart.stop.exitedAt - restart.stop.stoppedAt} ms, new one ready in ${restart.startToReadyMs} ms` +
          (ranking ? ` (ranking job: ${ranking.estado}, ${ranking.processados} of ${ranking.total})` : '') +
          (member.role === 'api' ? `; HAProxy took it out after ${lbOut.get(member.spec.name) ?? 'never'} ms` : ''),
      );
    }
    const rollingSeconds = (Date.now() - rollingStarted) / 1000;
    loading = false;
    await Promise.all(loops);
    const checksStarted = Date.now();

    // The new containers work: a run on each host started after the last restart completes.
    for (const host of HOSTS) {
      const answer = await lb.call('POST', `/api/agents/${fixture.agents[host]}/execute`, {
        task: 'stand-in:text probe',
        instructions: '',
      });
      if (answer.status === 202) load.probes.push(answer.body.executionId);
      else violations.push(`a run on ${host} after the restarts was not accepted: ${answer.status}`);
    }
    const approved = await lb.call('POST', `/api/pipelines/${gatedId}/approve`, {});
    if (approved.status !== 200) violations.push(`approving ${gatedId}: ${approved.status} ${JSON.stringify(approved.body)}`);

    const rankingJob = await rankingJobProblem((route) => lb.read(route), platform.persons);
    if (rankingJob !== null) violations.push(rankingJob);
    const ranking = await rankingPositionsProblem(platform.pool, platform.persons);
    if (ranking.problem !== null) violations.push(ranking.problem);

    const records = await untilFinal(platform, load, '', since, 0, SHAPE.boundMs);
    for (const watcher of watchers) await watcher.settle();
    // Each restart a strike, from its SIGTERM until its replacement was ready.
    const verdict = judgePhase({
      faults: ['rolling restart'],
      load,
      records,
      strikes: restarts.map((restart) => ({ target: restart.name, struckAt: restart.stop.stoppedAt, backAt: restart.readyAt })),
      watchers,
      starts: agentStarts(cluster.startsFile),
      scheduleFirings: 0,
    });
    violations.push(...verdict.violations);

    // Nothing relaxed for a deploy: every run completed, none ended "worker stopped".
    for (const row of records) {
      if (row.error?.includes(WORKER_STOPPED_ERROR)) violations.push(`${row.kind} ${row.id} ended "${WORKER_STOPPED_ERROR}"`);
      else if (row.status !== 'completed') violations.push(`${row.kind} ${row.id} ended ${row.status}: ${row.error}`);
    }
    const pipeline = records.find((row) => row.id === gatedId);
    const steps = records.filter((row) => row.pipeline_execution_id === gatedId);
    if (pipeline?.status !== 'completed') violations.push(`the approved pipeline run ended ${pipeline?.status}`);
    if (steps.length !== 3) violations.push(`the approved pipeline run has ${steps.length} step records, not 3`);

    for (const restart of restarts) {
      const { stop } = restart;
      if (stop.notReadyAt === null || stop.notReadyAt > stop.exitedAt)
        violations.push(
          `${restart.name}: /readyz did not answer 503 before the container exited (answers while stopping: ${JSON.stringify(stop.readyAnswers)})`,
        );
      if (stop.exitCode !== 0)
        violations.push(
          `${restart.name} exited ${stop.exitCode} on SIGTERM${stop.exitCode === 137 ? ' (killed at the end of its grace)' : ''}`,
        );
      if (restart.role === 'api') {
        const out = lbOut.get(restart.name);
        if (out === undefined || stop.stoppedAt + out > stop.exitedAt)
          violations.push(`${restart.name}: HAProxy had not taken it out before it exited`);
      }
    }
    const apiWindows = restarts
      .filter((restart) => restart.role === 'api')
      .map((restart) => [restart.stop.stoppedAt, restart.readyAt] as const);
    const duringApi = lb.counts.refused.filter((refusal) => apiWindows.some(([from, to]) => refusal.at >= from && refusal.at <= to));
    for (const refusal of lb.counts.refused.slice(0, 20))
      violations.push(`${refusal.method} ${refusal.route} through the load balancer: ${refusal.status} ${refusal.error ?? ''}`.trim());
    if (lb.counts.refused.length > 20) violations.push(`... and ${lb.counts.refused.length - 20} more refused requests`);
    const reconnections = watchers.reduce((sum, watcher) => sum + watcher.reconnections(), 0);
    if (reconnections === 0) violations.push('no WebSocket client was reconnected by the API restarts');

    const views = watchers.flatMap((watcher) => watcher.views());
    const proberRequests = await prober.stop();
    const [[started]] = await platform.pool.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM executions');
    log(`${started!.n} records in the deploy database`);
    const figures: DeployFigures = {
      runs: {
        accepted: verdict.figures.accepted,
        completed: verdict.figures.completed,
        notAccepted: load.refused,
        probes: load.probes.length,
        pipelineSteps: steps.length,
      },
      lines: {
        expected: load.runs.length * SHAPE.lines,
        shown: load.runs.reduce((sum, run) => {
          const view = views.find((candidate) => candidate.executionId === run.executionId);
          const record = records.find((row) => row.id === run.executionId);
          return sum + (view && record ? judgeRunLines(view.lines, run.tag, run.lines, record.status).shown : 0);
        }, 0),
        lost: verdict.figures.linesLost,
        doubled: verdict.figures.linesDoubled,
        liveChunks: views.reduce((sum, view) => sum + view.liveChunks, 0),
        catchUps: views.reduce((sum, view) => sum + view.catchUps, 0),
        reconnections,
      },
      restarts: restarts.map((restart) => ({
        name: restart.name,
        role: restart.role,
        drainMs: restart.stop.exitedAt - restart.stop.stoppedAt,
        notReadyAfterMs: restart.stop.notReadyAt === null ? null : restart.stop.notReadyAt - restart.stop.stoppedAt,
        lbOutAfterMs: lbOut.get(restart.name) ?? null,
        exitCode: restart.stop.exitCode,
        startToReadyMs: restart.startToReadyMs,
        totalMs: restart.readyAt - restart.stop.stoppedAt,
      })),
      longestDrainMs: Math.max(...restarts.map((restart) => restart.stop.exitedAt - restart.stop.stoppedAt)),
      lb: { requests: lb.counts.requests, refused: lb.counts.refused.length, refusedDuringApiRestarts: duringApi.length, proberRequests },
      ranking: { jobs: rankingJobs, persons: ranking.persons, expected: platform.persons },
      pipeline: { status: pipeline?.status ?? 'missing', steps: steps.map((step) => step.status) },
      seconds: { clusterStart: cluster.startSeconds, rollingRestart: rollingSeconds, checks: (Date.now() - checksStarted) / 1000 },
    };
    return { figures, violations };
  } finally {
    // Also after a failure: nothing of the load may outlive the test.
    loading = false;
    await Promise.race([Promise.allSettled(loops), sleep(30_000)]);
    await prober.stop();
    for (const watcher of watchers) watcher.close();
  }
}

/** The figures as the test prints them, and their file under .stack/logs/deploy/. */
export function writeFigures(result: DeployResult, totalSeconds: number): string {
  const out = path.join(DEPLOY_LOG_DIR, `result-${new Date().toISOString().slice(0, 16).replace(/:/g, '')}.json`);
  fs.writeFileSync(out, `${JSON.stringify({ ...result, totalSeconds }, null, 2)}\n`);
  return out;
}

export function figuresTable(figures: DeployFigures): string {
  const rows = figures.restarts.map(
    (restart) =>
      `| ${restart.name} | ${restart.notReadyAfterMs ?? 'never'} | ${restart.lbOutAfterMs ?? '—'} | ${restart.drainMs} | ${restart.exitCode} | ${restart.startToReadyMs} | ${restart.totalMs} |`,
  );
  return [
    '| container | /readyz 503 after (ms) | out of HAProxy after (ms) | drain: SIGTERM to exit (ms) | exit | new one ready in (ms) | restart (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `runs: ${figures.runs.accepted} accepted, ${figures.runs.completed} completed, ${figures.runs.notAccepted} not accepted; ` +
      `lines: ${figures.lines.shown} shown of ${figures.lines.expected}, ${figures.lines.lost} lost, ${figures.lines.doubled} doubled, ` +
      `${figures.lines.reconnections} reconnections, ${figures.lines.catchUps} catch-ups; longest drain ${figures.longestDrainMs} ms; ` +
      `through the load balancer ${figures.lb.requests} requests, ${figures.lb.refused} refused (${figures.lb.refusedDuringApiRestarts} during the API restarts); ` +
      `${figures.ranking.jobs} ranking jobs, ranking ${figures.ranking.persons} of ${figures.ranking.expected} persons; pipeline ${figures.pipeline.status} (${figures.pipeline.steps.join(', ')}); ` +
      `cluster start ${figures.seconds.clusterStart.toFixed(0)} s, rolling restart ${figures.seconds.rollingRestart.toFixed(0)} s, checks ${figures.seconds.checks.toFixed(0)} s`,
  ].join('\n');
}
