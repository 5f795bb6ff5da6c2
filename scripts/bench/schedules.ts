import './bench-env';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { agentScheduleId } from '../../temporal/agent-schedules';
import { closeTemporalClient, createTemporalClient } from '../../temporal/client';
import { ensureNamespace } from '../../temporal/namespace';
import { standInEnv, startStandInModel } from '../../test/support/stand-in-model';
import { fmt, percentile } from './measure';
import { apiCall, CLAUDE_CLI, startApi, startService, stopService, waitForLine } from './services';

/**
 * Schedules benchmark (issue 15; docs/tasks-schedules.md), with the REAL Claude Code CLI against the
 * stand-in model: BENCH_SCHEDULES agent schedules (default 50) whose cron fires in the same minute,
 * the first whole minute at least BENCH_LEAD_SECONDS (default 30) after they are created. Each is a
 * Temporal Schedule; each firing's workflow stores a record (source `schedule`) and runs the agent
 * (`stand-in` answers "OK") with BENCH_MAX_CONCURRENT runs at once (default 20). Measured from the
 * minute's start: when Temporal started each firing's workflow (the Schedule's action), when each
 * record was stored (the firing's first activity), when each run started, and
 * whether every schedule fired exactly once (none lost, none doubled). The cron is read in UTC here
 * (AGENT_SCHEDULE_TIMEZONE=UTC for the services), so the minute is computed without a time zone.
 *
 *   npm run bench:schedules   (BENCH_SCHEDULES, BENCH_LEAD_SECONDS, BENCH_MAX_CONCURRENT)
 */
const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 50);
const LEAD_SECONDS = Number(process.env.BENCH_LEAD_SECONDS ?? 30);
const MAX_CONCURRENT = Number(process.env.BENCH_MAX_CONCURRENT ?? 20);
/** How long after the firing minute the benchmark waits for every run to finish before it reports what it has. */
const WAIT_SECONDS = Number(process.env.BENCH_WAIT_SECONDS ?? 600);
const say = (line: string) => process.stdout.write(`${line}\n`);

const call = (base: string, method: string, route: string, body?: unknown) => apiCall(`${base}/api`, method, route, body);

interface HistoryRecord {
  id: string;
  scheduleId: string | null;
  status: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const model = await startStandInModel();
  const env = { AGENT_COMMAND: CLAUDE_CLI, AGENT_SCHEDULE_TIMEZONE: 'UTC' };
  const worker = startService('agents-worker', env);
  await waitForLine(worker, '"msg":"worker started"');
  const { process: apiProcess, base: v1 } = await startApi(env);
  const base = v1.replace(/\/api\/v1$/, '');
  const scheduleIds: string[] = [];
  try {
    await call(base, 'PUT', '/settings', { maxConcurrent: MAX_CONCURRENT });
    const agent = await call(base, 'POST', '/agents', { agent_name: `bench schedules ${Date.now()}`, config: { maxTurns: 5 } });
    for (const [secret, value] of Object.entries({ ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' })) {
      await call(base, 'POST', `/agents/${agent.id}/secrets`, { name: secret, value });
    }
    const firing = new Date(Math.ceil((Date.now() + LEAD_SECONDS * 1000) / 60_000) * 60_000);
    const cron = `${firing.getUTCMinutes()} ${firing.getUTCHours()} * * *`;
    say(`creating ${SCHEDULES} schedules with cron "${cron}" (UTC), firing at ${firing.toISOString()} ...`);
    const createStarted = Date.now();
    for (let index = 0; index < SCHEDULES; index++) {
      const schedule = await call(base, 'POST', '/schedules', {
        agentId: agent.id,
        taskDescription: `bench schedule ${index}`,
        cronExpression: cron,
      });
      if (schedule.nextRun !== firing.toISOString())
        throw new Error(`schedule ${index}: nextRun ${schedule.nextRun}, expected ${firing.toISOString()}`);
      scheduleIds.push(schedule.id);
    }
    const createSeconds = (Date.now() - createStarted) / 1000;
    if (Date.now() >= firing.getTime())
      throw new Error('the schedules were not all created before the firing minute: raise BENCH_LEAD_SECONDS');

    const wanted = new Set(scheduleIds);
    let records: HistoryRecord[] = [];
    const deadline = firing.getTime() + WAIT_SECONDS * 1000;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const history = (await call(base, 'GET', '/schedules/history?limit=100')) as HistoryRecord[];
      records = history.filter((record) => record.scheduleId !== null && wanted.has(record.scheduleId));
      const finished = records.filter((record) => record.endedAt !== null).length;
      if ((records.length >= SCHEDULES && finished === records.length) || Date.now() > deadline) break;
    }

    // Temporal's side: when each Schedule took its action (started the firing's workflow).
    const client = createTemporalClient(config.temporal);
    const taken: number[] = [];
    try {
      for (const id of scheduleIds) {
        const description = await client.client.schedule.getHandle(agentScheduleId(id)).describe();
        for (const action of description.info.recentActions) taken.push((action.takenAt.getTime() - firing.getTime()) / 1000);
      }
    } finally {
      await closeTemporalClient(client);
    }
    taken.sort((a, b) => a - b);

    const perSchedule = new Map<string, number>();
    for (const record of records) perSchedule.set(record.scheduleId!, (perSchedule.get(record.scheduleId!) ?? 0) + 1);
    const fired = perSchedule.size;
    const doubled = [...perSchedule.values()].filter((count) => count > 1).length;
    const stored = records.map((record) => (Date.parse(record.createdAt) - firing.getTime()) / 1000).sort((a, b) => a - b);
    const started = records
      .filter((record) => record.startedAt)
      .map((record) => (Date.parse(record.startedAt!) - firing.getTime()) / 1000)
      .sort((a, b) => a - b);
    const ended = records
      .filter((record) => record.endedAt)
      .map((record) => (Date.parse(record.endedAt!) - firing.getTime()) / 1000)
      .sort((a, b) => a - b);
    const statuses = new Map<string, number>();
    for (const record of records) statuses.set(record.status, (statuses.get(record.status) ?? 0) + 1);

    say('');
    say(
      `schedules: ${SCHEDULES} firing in the same minute, real Claude Code CLI against the stand-in model, maxConcurrent ${MAX_CONCURRENT}`,
    );
    say(`  created in ${fmt(createSeconds)} s (${fmt((createSeconds * 1000) / SCHEDULES, 1)} ms each: row + Temporal Schedule + describe)`);
    say(`  fired ${fired}/${SCHEDULES} schedules, ${records.length} records, ${doubled} fired twice, ${SCHEDULES - fired} lost`);
    say(`  seconds after the minute        p50      max`);
    say(
      `    workflow started (Temporal) ${fmt(percentile(taken, 50), 2)} ${fmt(taken.at(-1) ?? NaN, 2)}   (${taken.length} actions taken)`,
    );
    say(`    record stored (firing)   ${fmt(percentile(stored, 50), 2)} ${fmt(stored.at(-1) ?? NaN, 2)}`);
    say(`    run started              ${fmt(percentile(started, 50), 2)} ${fmt(started.at(-1) ?? NaN, 2)}   (${started.length} started)`);
    say(`    run ended                ${fmt(percentile(ended, 50), 2)} ${fmt(ended.at(-1) ?? NaN, 2)}   (${ended.length} ended)`);
    say(`  statuses: ${[...statuses].map(([status, count]) => `${status} ${count}`).join(', ')}`);
  } finally {
    for (const id of scheduleIds) await call(base, 'DELETE', `/schedules/${id}`).catch(() => undefined);
    await stopService(apiProcess);
    await stopService(worker);
    await model.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:schedules failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
