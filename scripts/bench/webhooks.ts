import './bench-env';
import { migrateDatabase } from '../../db/migrate';
import { config } from '../../lib/config';
import { ensureNamespace } from '../../temporal/namespace';
import { standInEnv, startStandInModel, type StandInModel } from '../../test/support/stand-in-model';
import { fmt, percentile } from './measure';
import { apiCall, CLAUDE_CLI, startApi, startService, stopService, waitForLine } from './services';

/**
 * Webhook burst benchmark (issue 15; docs/webhooks.md), with the REAL Claude Code CLI against the
 * stand-in model: BENCH_HOOK_CALLS (default 100) calls of one webhook's public URL at once, from one
 * address, twice:
 * - against the default budget (HOOK_RATE_LIMIT_REQUESTS 30 a minute): each call is answered 202 or
 *   429, nothing else;
 * - against a budget above the burst: every call is 202.
 * Either way none is lost: the webhook's triggerCount grows by the number of 202s exactly, every 202
 * names its own run, and every run completes (`stand-in` answers "OK").
 *
 *   npm run bench:webhooks   (BENCH_HOOK_CALLS)
 */
const CALLS = Number(process.env.BENCH_HOOK_CALLS ?? 100);
const say = (line: string) => process.stdout.write(`${line}\n`);

const call = (base: string, method: string, route: string, body?: unknown) => apiCall(`${base}/api`, method, route, body);

async function benchWebhook(base: string, model: StandInModel): Promise<{ id: string; token: string }> {
  const agent = await call(base, 'POST', '/agents', { agent_name: `bench webhook ${Date.now()}`, config: { maxTurns: 5 } });
  for (const [secret, value] of Object.entries({ ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' })) {
    await call(base, 'POST', `/agents/${agent.id}/secrets`, { name: secret, value });
  }
  return call(base, 'POST', '/webhooks', { name: `bench ${Date.now()}`, targetType: 'agent', targetId: agent.id });
}

async function triggerCount(base: string, id: string): Promise<number> {
  const list = (await call(base, 'GET', '/webhooks')) as Array<{ id: string; triggerCount: number }>;
  return list.find((webhook) => webhook.id === id)!.triggerCount;
}

interface Burst {
  statuses: Map<number, number>;
  executionIds: string[];
  answerMs: number[];
  seconds: number;
  counted: number;
  completed: number;
  failed: number;
  doneSeconds: number;
}

/** CALLS calls at once; then every accepted run followed to its end. */
async function burst(base: string, webhook: { id: string; token: string }): Promise<Burst> {
  const before = await triggerCount(base, webhook.id);
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: CALLS }, async (_, index) => {
      const sent = Date.now();
      const response = await fetch(`${base}/hook/${webhook.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ task: `bench call ${index}` }),
      });
      const body = (await response.json()) as { executionId?: string };
      return { status: response.status, executionId: body.executionId, ms: Date.now() - sent };
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const statuses = new Map<number, number>();
  for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const executionIds = answers.filter((answer) => answer.status === 202).map((answer) => answer.executionId!);
  const counted = (await triggerCount(base, webhook.id)) - before;

  let completed = 0;
  let failed = 0;
  for (const id of executionIds) {
    for (;;) {
      const record = await call(base, 'GET', `/executions/history/${id}`);
      if (record.status === 'completed') completed += 1;
      else if (record.status === 'error' || record.status === 'canceled') failed += 1;
      else {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      break;
    }
  }
  return {
    statuses,
    executionIds,
    answerMs: answers.map((answer) => answer.ms),
    seconds,
    counted,
    completed,
    failed,
    doneSeconds: (Date.now() - started) / 1000,
  };
}

function report(title: string, result: Burst): void {
  const sorted = [...result.answerMs].sort((a, b) => a - b);
  const statuses = [...result.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  const unique = new Set(result.executionIds).size;
  const lost =
    result.counted !== result.executionIds.length || unique !== result.executionIds.length || result.completed + result.failed !== unique;
  say(title);
  say(
    `  answers ${statuses}   (${CALLS} calls in ${fmt(result.seconds, 2).trim()} s; answer p50 ${fmt(percentile(sorted, 50), 0).trim()} ms, p99 ${fmt(percentile(sorted, 99), 0).trim()} ms)`,
  );
  say(
    `  counted ${result.counted}, distinct runs ${unique}, completed ${result.completed}, failed ${result.failed}, all done after ${fmt(result.doneSeconds, 1).trim()} s${lost ? '   LOST CALLS' : '   none lost'}`,
  );
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const model = await startStandInModel();
  const agentEnv = { AGENT_COMMAND: CLAUDE_CLI };
  const worker = startService('agents-worker', agentEnv);
  await waitForLine(worker, '"msg":"worker started"');
  // Two API processes: the default hook budget, and one above the burst (each its own Redis key prefix, so budgets start full).
  const stamp = Date.now();
  const limited = await startApi({ ...agentEnv, REDIS_KEY_PREFIX: `bench:hook-default-${stamp}:` });
  const open = await startApi({ ...agentEnv, HOOK_RATE_LIMIT_REQUESTS: String(CALLS * 10), REDIS_KEY_PREFIX: `bench:hook-open-${stamp}:` });
  const limitedBase = limited.base.replace(/\/api\/v1$/, '');
  const openBase = open.base.replace(/\/api\/v1$/, '');
  try {
    await call(openBase, 'PUT', '/settings', { maxConcurrent: 20 });
    const webhook = await benchWebhook(openBase, model);
    say(`burst: ${CALLS} calls of /hook/:token at once, default budget ...`);
    const defaultBudget = await burst(limitedBase, webhook);
    say(`burst: ${CALLS} calls of /hook/:token at once, budget ${CALLS * 10} ...`);
    const wideBudget = await burst(openBase, webhook);
    say('');
    say(`webhook burst, real Claude Code CLI against the stand-in model, maxConcurrentExecutions 20`);
    report(
      `default budget (HOOK_RATE_LIMIT_REQUESTS ${config.orchestration.webhooks.rateLimit.requests} per ${config.orchestration.webhooks.rateLimit.windowSeconds} s)`,
      defaultBudget,
    );
    report(`budget ${CALLS * 10}`, wideBudget);
  } finally {
    await stopService(limited.process);
    await stopService(open.process);
    await stopService(worker);
    await model.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:webhooks failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
