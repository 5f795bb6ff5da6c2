import { sql } from 'drizzle-orm';
import type { Database } from './index';

/**
 * The dashboard's statistics as set-based SQL over `executions` (docs/statistics.md). Every query
 * reads one window `[start, end)` of `created_at` (UTC: the pool's time zone is `Z`), a range of the
 * covering index `executions_stats` (created_at and every column read here), and groups in the
 * database: each answers a few rows (a day, a status, an agent or a pipeline per row), never the
 * records; names are looked up per group, after grouping.
 *
 * How pipelines are counted, so nothing is counted twice:
 * - runs (counts and statuses): the records the history lists, `pipeline_execution_id IS NULL`: an
 *   agent run or a pipeline run, each once; a pipeline's step records are part of their run;
 * - money and tokens: the agent records, `kind = 'agent'`, pipeline steps included: each CLI process
 *   once, on the day it was created. A run record's cost is the sum of its steps' (and a resumed
 *   run's includes the earlier runs' steps), so it is never added.
 */

export interface StatsWindow {
  start: Date;
  end: Date;
}

export interface DayStatusRow {
  day: string;
  status: string;
  /** Runs (agent runs and pipeline runs, not their steps) created that day with that status. */
  runs: number;
  /** Cost of the agent records (steps included) created that day with that status. */
  cost: number;
}

export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

export interface CostRow {
  /** Records with a cost. */
  count: number;
  cost: number;
  tokens: TokenTotals;
}

export interface DayCostRow extends CostRow {
  day: string;
}

export interface AgentCostRow extends CostRow {
  agentId: string | null;
  /** The agent's current name; the name stored with its newest record when the agent is gone. */
  name: string;
}

export interface PipelineCostRow extends CostRow {
  pipelineId: string | null;
  name: string;
  /** Distinct runs whose steps had a cost in the window. */
  runs: number;
}

type Row = Record<string, unknown>;

const day = sql`DATE_FORMAT(e.created_at, '%Y-%m-%d')`;
const inWindow = (window: StatsWindow) => sql`e.created_at >= ${window.start} AND e.created_at < ${window.end}`;
/** The agent records that cost something (the legacy server counted only records with a cost). */
const costed = sql`e.kind = 'agent' AND e.cost_usd > 0`;
const costColumns = sql`COUNT(*) AS n, SUM(e.cost_usd) AS cost,
  COALESCE(SUM(e.input_tokens), 0) AS input_tokens, COALESCE(SUM(e.output_tokens), 0) AS output_tokens,
  COALESCE(SUM(e.cache_read_tokens), 0) AS cache_read_tokens, COALESCE(SUM(e.cache_creation_tokens), 0) AS cache_creation_tokens`;

async function rows(db: Database, query: ReturnType<typeof sql>): Promise<Row[]> {
  const [result] = await db.execute(query);
  return result as unknown as Row[];
}

// SUM over DECIMAL and BIGINT comes back as a string: numbers are made here.
const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

function costRow(row: Row): CostRow {
  return {
    count: num(row.n),
    cost: num(row.cost),
    tokens: {
      input: num(row.input_tokens),
      output: num(row.output_tokens),
      cacheRead: num(row.cache_read_tokens),
      cacheCreation: num(row.cache_creation_tokens),
    },
  };
}

/** Runs per day and status, with the agent records' cost beside them: one scan for the charts. */
export async function runsByDayAndStatus(db: Database, window: StatsWindow): Promise<DayStatusRow[]> {
  const found = await rows(
    db,
    sql`SELECT ${day} AS day, e.status AS status,
          SUM(e.pipeline_execution_id IS NULL) AS runs,
          COALESCE(SUM(CASE WHEN e.kind = 'agent' THEN e.cost_usd END), 0) AS cost
        FROM executions e
        WHERE ${inWindow(window)}
        GROUP BY day, e.status`,
  );
  return found.map((row) => ({ day: String(row.day), status: String(row.status), runs: num(row.runs), cost: num(row.cost) }));
}

/** The agents with the most records in the window (steps included), most first, then by name. */
export async function agentsByRuns(
  db: Database,
  window: StatsWindow,
  limit: number,
): Promise<Array<{ agentId: string | null; name: string; count: number }>> {
  // Grouped from the index first (executions_stats), then each group's current name: one lookup per agent, not per record.
  const found = await rows(
    db,
    sql`SELECT g.agent_id AS agent_id, COALESCE(a.name, g.stored_name) AS name, g.n AS n
        FROM (SELECT e.agent_id, MAX(e.agent_name) AS stored_name, COUNT(*) AS n
                FROM executions e
               WHERE ${inWindow(window)} AND e.kind = 'agent'
               GROUP BY e.agent_id) g
          LEFT JOIN agents a ON a.id = g.agent_id
        ORDER BY n DESC, name ASC
        LIMIT ${limit}`,
  );
  return found.map((row) => ({ agentId: (row.agent_id as string | null) ?? null, name: String(row.name), count: num(row.n) }));
}

/** Cost, count and tokens of the costed agent records per UTC day (days without any are absent). */
export async function costsByDay(db: Database, window: StatsWindow): Promise<DayCostRow[]> {
  const found = await rows(
    db,
    sql`SELECT ${day} AS day, ${costColumns}
        FROM executions e
        WHERE ${inWindow(window)} AND ${costed}
        GROUP BY day
        ORDER BY day`,
  );
  return found.map((row) => ({ day: String(row.day), ...costRow(row) }));
}

const groupedCosts = sql`n, cost, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens`;

/** Cost, count and tokens per agent (its pipeline steps included), most expensive first. */
export async function costsByAgent(db: Database, window: StatsWindow, limit: number): Promise<AgentCostRow[]> {
  const found = await rows(
    db,
    sql`SELECT g.agent_id AS agent_id, COALESCE(a.name, g.stored_name) AS name, ${groupedCosts}
        FROM (SELECT e.agent_id, MAX(e.agent_name) AS stored_name, ${costColumns}
                FROM executions e
               WHERE ${inWindow(window)} AND ${costed}
               GROUP BY e.agent_id) g
          LEFT JOIN agents a ON a.id = g.agent_id
        ORDER BY cost DESC, name ASC
        LIMIT ${limit}`,
  );
  return found.map((row) => ({ agentId: (row.agent_id as string | null) ?? null, name: String(row.name), ...costRow(row) }));
}

/**
 * Cost, count and tokens per pipeline: the sum of its step records (each run's cost is theirs). The
 * name is the pipeline's current one, else the name one of its runs stored, else its id.
 */
export async function costsByPipeline(db: Database, window: StatsWindow, limit: number): Promise<PipelineCostRow[]> {
  const found = await rows(
    db,
    sql`SELECT g.pipeline_id AS pipeline_id,
               COALESCE(p.name, (SELECT r.agent_name FROM executions r WHERE r.id = g.some_run), g.pipeline_id) AS name,
               g.runs AS runs, ${groupedCosts}
        FROM (SELECT e.pipeline_id, MAX(e.pipeline_execution_id) AS some_run, COUNT(DISTINCT e.pipeline_execution_id) AS runs, ${costColumns}
                FROM executions e
               WHERE ${inWindow(window)} AND ${costed} AND e.pipeline_execution_id IS NOT NULL
               GROUP BY e.pipeline_id) g
          LEFT JOIN pipelines p ON p.id = g.pipeline_id
        ORDER BY cost DESC, name ASC
        LIMIT ${limit}`,
  );
  return found.map((row) => ({
    pipelineId: (row.pipeline_id as string | null) ?? null,
    name: (row.name as string | null) ?? '',
    runs: num(row.runs),
    ...costRow(row),
  }));
}
