import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq } from 'drizzle-orm';
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

/** MariaDB's duplicate-key error, as raised by mysql2 or wrapped by drizzle. */
function isDuplicateKey(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === 'ER_DUP_ENTRY') return true;
  }
  return false;
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

/** Creates an agent with a new UUID and its version 1, in one transaction. */
export async function createAgent(db: Database, data: AgentData): Promise<Agent> {
  const now = new Date();
  const agent: Agent = { id: randomUUID(), ...agentDataOf(data), version: 1, createdAt: now, updatedAt: now };
  try {
    await db.transaction(async (tx) => {
      await tx.insert(agents).values(agent);
      await tx.insert(agentVersions).values({ agentId: agent.id, version: 1, data: agentDataOf(agent), createdAt: now });
    });
  } catch (error) {
    rethrowNameTaken(error, data.name);
  }
  return agent;
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
export async function createAgentWithFreeName(db: Database, data: AgentData, label: string, firstAttempt: number): Promise<Agent> {
  for (let attempt = firstAttempt; attempt < firstAttempt + NAME_ATTEMPTS; attempt++) {
    const name = candidateName(data.name, label, attempt);
    try {
      return await createAgent(db, { ...data, name });
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
 * one transaction (the agent row is locked, so concurrent writers get consecutive numbers).
 * Returns null when the agent does not exist.
 */
async function writeNextVersion(
  db: Database,
  id: string,
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
      return updated;
    });
  } catch (error) {
    rethrowNameTaken(error, attemptedName);
  }
}

/** Updates the fields given in `changes` (the others keep their value); a new version records it. */
export async function updateAgent(db: Database, id: string, changes: Partial<AgentData>): Promise<Agent | null> {
  return writeNextVersion(db, id, async (current) => ({ ...current, ...changes }));
}

/**
 * Brings back the data of `version` as a new version (history is never rewritten). Null when the
 * agent does not exist; AgentVersionNotFoundError when it has no such version.
 */
export async function restoreAgentVersion(db: Database, id: string, version: number): Promise<Agent | null> {
  return writeNextVersion(db, id, async (_current, tx) => {
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
