import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { chooseHost, holds, type AgentHostEntry } from '../domain/agent-hosts';
import { agentHostEntries } from './agent-hosts-store';

/**
 * Pins an execution record to an agents host (docs/multi-host.md), once: the host it inherits, else
 * a live host that holds its working directory (domain/agent-hosts.ts).
 *
 * - A pipeline step goes where its run is pinned (the first step pins the run), and a resumed run
 *   where the run it resumes was: the steps share one working directory and one working copy.
 * - A `continue` or a retry goes where its parent ran: the CLI's session and the files are there.
 *   They are pinned there even while that host is down (they wait for it; elsewhere they would fail).
 * - A delegated run goes where the run it was delegated from ran when that host holds its directory.
 */

export type PinnedHost = { host: string } | { host: null; hosts: AgentHostEntry[] };

interface PinRow extends RowDataPacket {
  host: string | null;
  working_directory: string;
  parent_execution_id: string | null;
  delegated_from: string | null;
  pipeline_execution_id: string | null;
  resumed_from: string | null;
}

const PIN_COLUMNS = 'host, working_directory, parent_execution_id, delegated_from, pipeline_execution_id, resumed_from';

export async function pinExecutionHost(pool: Pool, executionId: string, now: Date = new Date()): Promise<PinnedHost> {
  const record = await pinRow(pool, executionId);
  if (record === undefined) throw new Error(`execution ${executionId} not found`);
  if (record.host !== null) return { host: record.host };
  const run = record.pipeline_execution_id === null ? undefined : await pinRow(pool, record.pipeline_execution_id);
  let host = run === undefined ? await inheritedHost(pool, record) : (run.host ?? (await inheritedHost(pool, run)));
  let hosts: AgentHostEntry[] = [];
  if (host === null || record.delegated_from !== null) {
    hosts = await agentHostEntries(pool, now);
    // A delegated run keeps its origin's host only where that host holds its directory.
    const origin = hosts.find((entry) => entry.name === host);
    if (host !== null && record.delegated_from !== null && (origin === undefined || !holds(origin, record.working_directory))) host = null;
    host ??= chooseHost(record.working_directory, hosts);
  }
  if (host === null) return { host: null, hosts };
  // The first step pins its run too.
  if (run !== undefined && run.host === null) host = await claimHost(pool, record.pipeline_execution_id!, host);
  return { host: await claimHost(pool, executionId, host) };
}

/** Pins `id` to `host` unless it has a host already (a retried activity got there first): the host it has now. */
async function claimHost(pool: Pool, id: string, host: string): Promise<string> {
  const [result] = await pool.query<ResultSetHeader>('UPDATE executions SET host = ? WHERE id = ? AND host IS NULL', [host, id]);
  if (result.affectedRows === 1) return host;
  return (await pinRow(pool, id))?.host ?? host;
}

/** The host of the run `record` continues, retries, resumes or was delegated from; null: none pinned. */
async function inheritedHost(pool: Pool, record: PinRow): Promise<string | null> {
  const origin = record.parent_execution_id ?? record.resumed_from ?? record.delegated_from;
  if (origin === null) return null;
  return (await pinRow(pool, origin))?.host ?? null;
}

async function pinRow(pool: Pool, id: string): Promise<PinRow | undefined> {
  const [rows] = await pool.query<PinRow[]>(`SELECT ${PIN_COLUMNS} FROM executions WHERE id = ?`, [id]);
  return rows[0];
}
