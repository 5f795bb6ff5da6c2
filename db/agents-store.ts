import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, lte } from 'drizzle-orm';
import { agentDataOf, type AgentData } from './agent-data';
import type { Database } from './index';
import { agents, agentVersions } from './schema';

export type Agent = typeof agents.$inferSelect;

export interface AgentVersion {
  version: number;
  createdAt: Date;
  data: AgentData;
}

/** Another agent already has this name (unique, case-insensitive: docs/agents.md). */
export class AgentNameTakenError extends Error {
  override name = 'AgentNameTakenError';
  constructor(readonly agentName: string) {
    super(`an agent named "${agentName}" already exists`);
  }
}

/**
 * What the store keeps (AGENTS_MAX, AGENT_VERSIONS_KEPT): the bounds live here, not in a route, so
 * every way of creating or changing an agent (API, import, duplicate, scripts) is held to them.
 */
export interface AgentStoreLimits {
  /** Most agents; one more is refused (AgentLimitReachedError). */
  agents: number;
  /** Versions kept per agent: the newest ones; older ones are deleted when a new one is written. */
  versionsPerAgent: number;
}

/** The service already holds its most agents (docs/agents.md: 409). */
export class AgentLimitReachedError extends Error {
  override name = 'AgentLimitReachedError';
  constructor(readonly limit: number) {
    super(`the service keeps at most ${limit} agents: delete one before creating another`);
  }
}

/** A MariaDB error code, as raised by mysql2 or wrapped by drizzle. */
function hasErrorCode(error: unknown, code: string): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === code) return true;
  }
  return false;
}

function isDuplicateKey(error: unknown): boolean {
  return hasErrorCode(error, 'ER_DUP_ENTRY');
}

/** The only unique key an agent write can break, besides the random id, is the name. */
function rethrowNameTaken(error: unknown, name: string): never {
  throw isDuplicateKey(error) ? new AgentNameTakenError(name) : error;
}

export async function listAgents(db: Database): Promise<Agent[]> {
  return db.select().from(agents).orderBy(asc(agents.name));
}

export async function findAgent(db: Database, id: string): Promise<Agent | null> {
  const rows = await db.select().from(agents).where(eq(agents.id, id));
  return rows[0] ?? null;
}

/** Creations that deadlock on the count's locks (two at once on an empty table) are tried again. */
const CREATE_ATTEMPTS = 3;

/**
 * Creates an agent with a new UUID and its version 1, in one transaction, unless the service
 * already holds `limits.agents` agents (AgentLimitReachedError). The count locks every agent row and
 * the gaps between them, so concurrent creations are serialised and the bound holds exactly.
 */
export async function createAgent(db: Database, data: AgentData, limits: Pick<AgentStoreLimits, 'agents'>): Promise<Agent> {
  for (let attempt = 1; ; attempt++) {
    const now = new Date();
    // TODO(issue 14, agents contract): the new columns come from AgentData.
    const agent: Agent = { id: randomUUID(), tags: [], status: 'active', allowedTools: '', retryOnFailure: false, maxRetries: 3, delegateTo: null, ...agentDataOf(data), version: 1, createdAt: now, updatedAt: now };
    try {
      await db.transaction(async (tx) => {
        const [counted] = await tx.select({ total: count() }).from(agents).for('update');
        if (Number(counted?.total ?? 0) >= limits.agents) throw new AgentLimitReachedError(limits.agents);
        await tx.insert(agents).values(agent);
        await tx.insert(agentVersions).values({ agentId: agent.id, version: 1, data: agentDataOf(agent), createdAt: now });
      });
      return agent;
    } catch (error) {
      if (attempt < CREATE_ATTEMPTS && hasErrorCode(error, 'ER_LOCK_DEADLOCK')) continue;
      rethrowNameTaken(error, data.name);
    }
  }
}

/** Longest agent name (the column's length; the API validates the same bound). */
export const AGENT_NAME_MAX = 100;

/** `base`, then `base (label)`, `base (label 2)`, ...: the base is cut so the result fits the column. */
export function candidateName(base: string, label: string, attempt: number): string {
  if (attempt === 0) return base;
  const suffix = attempt === 1 ? ` (${label})` : ` (${label} ${attempt})`;
  return base.slice(0, AGENT_NAME_MAX - suffix.length).trimEnd() + suffix;
}

const NAME_ATTEMPTS = 100;

/**
 * Creates an agent under the first free name among `candidateName(data.name, label, n)`, starting at
 * `firstAttempt` (0 keeps the name when free). The unique key settles races between two writers.
 */
export async function createAgentWithFreeName(
  db: Database,
  data: AgentData,
  label: string,
  firstAttempt: number,
  limits: Pick<AgentStoreLimits, 'agents'>,
): Promise<Agent> {
  for (let attempt = firstAttempt; attempt < firstAttempt + NAME_ATTEMPTS; attempt++) {
    const name = candidateName(data.name, label, attempt);
    try {
      return await createAgent(db, { ...data, name }, limits);
    } catch (error) {
      if (!(error instanceof AgentNameTakenError)) throw error;
    }
  }
  throw new AgentNameTakenError(candidateName(data.name, label, firstAttempt));
}

/** The version asked for a restore does not exist. */
export class AgentVersionNotFoundError extends Error {
  override name = 'AgentVersionNotFoundError';
  constructor(
    readonly agentId: string,
    readonly version: number,
  ) {
    super(`agent ${agentId} has no version ${version}`);
  }
}

/**
 * Replaces the agent's data with what `nextData` returns and records it as the next version, in
 * one transaction (the agent row is locked, so concurrent writers get consecutive numbers). Only
 * the newest `limits.versionsPerAgent` versions are kept: older ones are deleted in the same
 * transaction (numbers are never reused). Returns null when the agent does not exist.
 */
async function writeNextVersion(
  db: Database,
  id: string,
  limits: Pick<AgentStoreLimits, 'versionsPerAgent'>,
  nextData: (current: AgentData, tx: Pick<Database, 'select'>) => Promise<AgentData>,
): Promise<Agent | null> {
  let attemptedName = '';
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx.select().from(agents).where(eq(agents.id, id)).for('update');
      if (!current) return null;
      const data = agentDataOf(await nextData(agentDataOf(current), tx));
      attemptedName = data.name;
      const now = new Date();
      const updated: Agent = { ...current, ...data, version: current.version + 1, updatedAt: now };
      await tx.update(agents).set(updated).where(eq(agents.id, id));
      await tx.insert(agentVersions).values({ agentId: id, version: updated.version, data, createdAt: now });
      const newestPruned = updated.version - limits.versionsPerAgent;
      await tx.delete(agentVersions).where(and(eq(agentVersions.agentId, id), lte(agentVersions.version, newestPruned)));
      return updated;
    });
  } catch (error) {
    rethrowNameTaken(error, attemptedName);
  }
}

/** Updates the fields given in `changes` (the others keep their value); a new version records it. */
export async function updateAgent(
  db: Database,
  id: string,
  changes: Partial<AgentData>,
  limits: Pick<AgentStoreLimits, 'versionsPerAgent'>,
): Promise<Agent | null> {
  return writeNextVersion(db, id, limits, async (current) => ({ ...current, ...changes }));
}

/**
 * Brings back the data of `version` as a new version (history is never rewritten). Null when the
 * agent does not exist; AgentVersionNotFoundError when it has no such version.
 */
export async function restoreAgentVersion(
  db: Database,
  id: string,
  version: number,
  limits: Pick<AgentStoreLimits, 'versionsPerAgent'>,
): Promise<Agent | null> {
  return writeNextVersion(db, id, limits, async (_current, tx) => {
    const [row] = await tx
      .select({ data: agentVersions.data })
      .from(agentVersions)
      .where(and(eq(agentVersions.agentId, id), eq(agentVersions.version, version)));
    if (!row) throw new AgentVersionNotFoundError(id, version);
    return row.data;
  });
}

/** Newest first. */
export async function listAgentVersions(db: Database, id: string): Promise<AgentVersion[]> {
  return db
    .select({ version: agentVersions.version, createdAt: agentVersions.createdAt, data: agentVersions.data })
    .from(agentVersions)
    .where(eq(agentVersions.agentId, id))
    .orderBy(desc(agentVersions.version));
}

/** Deletes the agent; its versions and secrets go with it (foreign keys ON DELETE CASCADE). */
export async function deleteAgent(db: Database, id: string): Promise<boolean> {
  const [result] = await db.delete(agents).where(eq(agents.id, id));
  return result.affectedRows > 0;
}
