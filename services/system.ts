import { z } from 'zod';
import { and, count, eq, gte, inArray, isNull, lt, sum } from 'drizzle-orm';
import type { Database } from '../db';
import { ACTIVE_STATUSES } from '../domain/execution-status';
import { agents, executions } from '../db/schema';
import { countSchedules } from '../db/schedules-store';
import { countWebhooks } from '../db/webhooks-store';
import { countPipelines, countRunningPipelines } from '../db/pipelines-store';
import { agentCliVersion } from '../lib/agent-cli-version';
import type { Config } from '../lib/config';
import { AGENT_CLI_NAMES, AGENT_CLIS, type AgentCliName } from '../domain/agent-clis';
import { utcDay } from '../domain/utc-day';
import { budgetsOverview, budgetsOverviewSchema } from './budgets';

export { utcDay };

/** The panel's dashboard counters and system info (docs/system-status.md). */

export interface SystemDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: the settings (the global budget) are read with them. */
  workdirRoots: readonly string[];
}

const tally = z.number().int();
const totalAndActive = z.object({ total: tally, active: tally });

/** The dashboard's counters (contract 3.11), part of GET /api/system/status's answer. */
export const systemCountersSchema = z.object({
  agents: z.object({ total: tally, active: tally, inactive: tally }).meta({ description: 'Agentes por `status`' }),
  executions: z.object({
    active: tally.meta({ description: 'Registros em fila ou em execução' }),
    today: tally.meta({ description: 'Execuções criadas hoje (dia UTC), cada execução de agente ou de pipeline uma vez' }),
  }),
  schedules: totalAndActive,
  pipelines: totalAndActive.extend({ running: tally.meta({ description: 'Execuções de pipeline ativas' }) }),
  webhooks: totalAndActive,
  costs: z.object({
    today: z.number().meta({ description: 'Custo (USD, 4 casas) dos registros de agente iniciados hoje (dia UTC)' }),
    budgets: budgetsOverviewSchema,
  }),
});
export type SystemCounters = z.infer<typeof systemCountersSchema>;

/**
 * The counters GET /api/system/status answers (contract 3.11). Agents count by their `status`
 * (`active` or `inactive`, docs/agents.md); webhooks and schedules by their `active` flag (docs/webhooks.md,
 * docs/tasks-schedules.md). Pipelines by their `status`, `running` their active runs (docs/pipelines.md). `executions.today` counts the runs created on today's UTC
 * date as the panel means them: each agent run once, each pipeline run once, its steps not again (the
 * original counted runs since its own start; docs/system-status.md); `costs.today` sums the cost of the agent
 * records (pipeline steps included, never a run's own sum of them) started on it, rounded to 4
 * decimals, always a number.
 */
export async function systemCounters(deps: SystemDeps, now: Date = new Date()): Promise<SystemCounters> {
  const { start, end } = utcDay(now);
  const [agentRow] = await deps.db.select({ n: count() }).from(agents);
  const [activeAgentRow] = await deps.db.select({ n: count() }).from(agents).where(eq(agents.status, 'active'));
  const [activeRow] = await deps.db
    .select({ n: count() })
    .from(executions)
    .where(inArray(executions.status, [...ACTIVE_STATUSES]));
  const [todayRow] = await deps.db
    .select({ n: count() })
    .from(executions)
    .where(and(gte(executions.createdAt, start), lt(executions.createdAt, end), isNull(executions.pipelineExecutionId)));
  const [costRow] = await deps.db
    .select({ total: sum(executions.costUsd) })
    .from(executions)
    // Agent records only, pipeline steps included: a pipeline run's cost is its steps' (docs/statistics.md).
    .where(and(eq(executions.kind, 'agent'), gte(executions.startedAt, start), lt(executions.startedAt, end)));
  const webhookCounts = await countWebhooks(deps.db);
  const totalAgents = Number(agentRow?.n ?? 0);
  const activeAgents = Number(activeAgentRow?.n ?? 0);
  const costToday = Math.round(Number(costRow?.total ?? 0) * 10_000) / 10_000;
  return {
    agents: { total: totalAgents, active: activeAgents, inactive: totalAgents - activeAgents },
    executions: { active: Number(activeRow?.n ?? 0), today: Number(todayRow?.n ?? 0) },
    schedules: await countSchedules(deps.db),
    pipelines: { ...(await countPipelines(deps.db)), running: await countRunningPipelines(deps.db) },
    webhooks: webhookCounts,
    // Each daily budget beside what is spent today (docs/budgets.md).
    costs: { today: costToday, budgets: await budgetsOverview(deps, now) },
  };
}

/** The installed agent CLI's version (`claude --version`), or 'N/A'. */
export function claudeVersion(agentCommand: string): Promise<string> {
  return agentCliVersion(agentCommand);
}

/** One coding-agent CLI as GET /api/system/info lists it. */
export interface InstalledCli {
  cli: AgentCliName;
  label: string;
  command: string;
  /** The first line of `<command> --version`, or 'N/A'. */
  version: string;
}

/** Each coding-agent CLI an agent may run (docs/agent-clis.md), with its command and the version it reports. */
export async function installedClis(orchestration: Pick<Config['orchestration'], 'agentCommand' | 'cliCommands'>): Promise<InstalledCli[]> {
  const commands: Record<AgentCliName, string> = { 'claude-code': orchestration.agentCommand, ...orchestration.cliCommands };
  return Promise.all(
    AGENT_CLI_NAMES.map(async (cli) => ({
      cli,
      label: AGENT_CLIS[cli].label,
      command: commands[cli],
      version: await agentCliVersion(commands[cli]),
    })),
  );
}
