import { lt, sql } from 'drizzle-orm';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { AGENT_HOST_LIVE_MS, type AgentHostEntry } from '../domain/agent-hosts';
import type { Database } from './index';
import { agentHosts } from './schema';

/** The registry of agents hosts (docs/multi-host.md). */

/** A host not seen for this long (or stopped that long ago) leaves the registry when another registers. */
export const AGENT_HOST_FORGOTTEN_MS = 7 * 86_400_000;

/**
 * An agents worker starting: its host's roots replace what was registered under that name; hosts
 * gone for a week are forgotten (runs pinned to them keep their host in their own record).
 */
export async function registerAgentHost(
  db: Database,
  host: { name: string; roots: readonly string[] },
  now: Date = new Date(),
): Promise<void> {
  await db.delete(agentHosts).where(lt(agentHosts.seenAt, new Date(now.getTime() - AGENT_HOST_FORGOTTEN_MS)));
  await db
    .insert(agentHosts)
    .values({ name: host.name, roots: [...host.roots], startedAt: now, seenAt: now, draining: false })
    .onDuplicateKeyUpdate({ set: { roots: [...host.roots], startedAt: now, seenAt: now, draining: false } });
}

/** The host's worker is alive. */
export async function markAgentHostSeen(db: Database, name: string, now: Date = new Date()): Promise<void> {
  await db.execute(sql`UPDATE agent_hosts SET seen_at = ${now} WHERE name = ${name}`);
}

/**
 * The host's worker drains (SIGTERM): still alive (its heartbeat goes on) for the runs it holds and
 * what they need of its disk, but a new run goes to another live host holding its directory when one
 * does (domain/agent-hosts.ts). Its next start registers it again, not draining.
 */
export async function markAgentHostDraining(db: Database, name: string): Promise<void> {
  await db.execute(sql`UPDATE agent_hosts SET draining = TRUE WHERE name = ${name}`);
}

/**
 * Whether a host drains now: registered, seen within AGENT_HOST_LIVE_MS and marked draining. A host
 * whose worker has stopped stays marked draining until its next start registers it again (a rolling
 * restart) or it is no longer live (a host removed for good).
 */
export async function agentHostDrains(pool: Pool, name: string, now: Date = new Date()): Promise<boolean> {
  const [rows] = await pool.query<RowDataPacket[]>('SELECT seen_at, draining FROM agent_hosts WHERE name = ?', [name]);
  const row = rows[0] as { seen_at: Date; draining: number | boolean } | undefined;
  return row !== undefined && Boolean(row.draining) && row.seen_at.getTime() >= now.getTime() - AGENT_HOST_LIVE_MS;
}

interface HostRow extends RowDataPacket {
  name: string;
  roots: string;
  seen_at: Date;
  draining: number | boolean;
  running: number | string;
}

/** Every registered host, with whether it is live and how many records run on it: one query. */
export async function agentHostEntries(pool: Pool, now: Date = new Date()): Promise<AgentHostEntry[]> {
  const [rows] = await pool.query<HostRow[]>(
    `SELECT h.name, h.roots, h.seen_at, h.draining,
            (SELECT COUNT(*) FROM executions e WHERE e.status = 'running' AND e.host = h.name) AS running
       FROM agent_hosts h ORDER BY h.name`,
  );
  const liveAfter = now.getTime() - AGENT_HOST_LIVE_MS;
  return rows.map((row) => ({
    name: row.name,
    roots: parseRoots(row.roots),
    live: row.seen_at.getTime() >= liveAfter,
    draining: Boolean(row.draining),
    running: Number(row.running),
  }));
}

/**
 * The roots a record stored by a worker of the shared queue may use (a schedule's firing, a delegated
 * run): every registered host's, live or not (a run pinned to a host that is down waits for it), and
 * this worker's own first. The API is given the same union in its AGENT_WORKDIR_ROOTS.
 */
export async function everyHostRoots(db: Database, own: readonly string[]): Promise<string[]> {
  const rows = await db.select({ roots: agentHosts.roots }).from(agentHosts).orderBy(agentHosts.name);
  return [
    ...new Set([
      ...own,
      ...rows.flatMap((row) => (Array.isArray(row.roots) ? row.roots.filter((root): root is string => typeof root === 'string') : [])),
    ]),
  ];
}

function parseRoots(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((root): root is string => typeof root === 'string') : [];
}
