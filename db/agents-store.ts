import { AGENT_CHANGELOG } from '../domain/agent-changelog';
import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, lte } from 'drizzle-orm';
import { agentDataOf, changedDataFields, predatesPanelFields, type AgentData, type AgentDataInput } from './agent-data';
import type { Database } from './index';
import { agents, agentVersions } from './schema';
import { hasErrorCode, isDuplicateKey } from './mysql-errors';

export type Agent = typeof agents.$inferSelect;

export interface AgentVersion {
  version: number;
  createdAt: Date;
  /** The agent's data after this version's change (fields added later take their defaults). */
  data: AgentData;
  changelog: string;
  /** The data fields this version changed; null for a version written before they were recorded. */
  changedFields: (keyof AgentData)[] | null;
}

/** How a write describes itself in the versions list, given the fields it changed. */
export type Changelog = string | ((changed: (keyof AgentData)[]) => string);

const describe = (changelog: Changelog, changed: (keyof AgentData)[]) => (typeof changelog === 'string' ? changelog : changelog(changed));

/** `delegateTo` names no other existing agent (itself, or an agent that does not exist). */
export class AgentDelegateInvalidError extends Error {
  override name = 'AgentDelegateInvalidError';
  constructor(readonly delegateTo: string) {
    super(`config.delegateTo: "${delegateTo}" não é o id de outro agente`);
  }
}

/** Another agent already has this name (unique, case-insensitive: docs/agents.md). */
export class AgentNameTakenError extends Error {
  override name = 'AgentNameTakenError';
  constructor(readonly agentName: string) {
    super(`Já existe um agente chamado "${agentName}"`);
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
    super(`O serviço mantém no máximo ${limit} agentes: exclua um antes de criar outro`);
  }
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
export async function createAgent(
  db: Database,
  data: AgentDataInput,
  limits: Pick<AgentStoreLimits, 'agents'>,
  changelog: string = AGENT_CHANGELOG.created,
): Promise<Agent> {
  for (let attempt = 1; ; attempt++) {
    const now = new Date();
    const agent: Agent = { id: randomUUID(), ...agentDataOf(data), version: 1, createdAt: now, updatedAt: now };
    try {
      await db.transaction(async (tx) => {
        const [counted] = await tx.select({ total: count() }).from(agents).for('update');
        if (Number(counted?.total ?? 0) >= limits.agents) throw new AgentLimitReachedError(limits.agents);
        await checkDelegate(tx, agent.id, agent.delegateTo);
        await tx.insert(agents).values(agent);
        await tx
          .insert(agentVersions)
          .values({ agentId: agent.id, version: 1, data: agentDataOf(agent), changelog, changedFields: [], createdAt: now });
      });
      return agent;
    } catch (error) {
      if (attempt < CREATE_ATTEMPTS && hasErrorCode(error, 'ER_LOCK_DEADLOCK')) continue;
      rethrowNameTaken(error, data.name);
    }
  }
}

type Reader = Pick<Database, 'select'>;

/** Whether `delegateTo` is another existing agent than `selfId` (null: no delegate, fine). */
async function isValidDelegate(tx: Reader, selfId: string, delegateTo: string | null): Promise<boolean> {
  if (delegateTo === null) return true;
  if (delegateTo === selfId) return false;
  const [row] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, delegateTo));
  return row !== undefined;
}

async function checkDelegate(tx: Reader, selfId: string, delegateTo: string | null): Promise<void> {
  if (!(await isValidDelegate(tx, selfId, delegateTo))) throw new AgentDelegateInvalidError(delegateTo ?? '');
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
  data: AgentDataInput,
  label: string,
  firstAttempt: number,
  limits: Pick<AgentStoreLimits, 'agents'>,
  changelog: string = AGENT_CHANGELOG.created,
): Promise<Agent> {
  for (let attempt = firstAttempt; attempt < firstAttempt + NAME_ATTEMPTS; attempt++) {
    const name = candidateName(data.name, label, attempt);
    try {
      return await createAgent(db, { ...data, name }, limits, changelog);
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
    super(`O agente ${agentId} não tem a versão ${version}`);
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
  changelog: Changelog,
  nextData: (current: AgentData, tx: Reader) => Promise<AgentData>,
): Promise<Agent | null> {
  let attemptedName = '';
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx.select().from(agents).where(eq(agents.id, id)).for('update');
      if (!current) return null;
      const before = agentDataOf(current);
      const data = agentDataOf(await nextData(before, tx));
      attemptedName = data.name;
      const now = new Date();
      const updated: Agent = { ...current, ...data, version: current.version + 1, updatedAt: now };
      const changedFields = changedDataFields(before, data);
      await tx.update(agents).set(updated).where(eq(agents.id, id));
      await tx.insert(agentVersions).values({
        agentId: id,
        version: updated.version,
        data,
        changelog: describe(changelog, changedFields),
        changedFields,
        createdAt: now,
      });
      const newestPruned = updated.version - limits.versionsPerAgent;
      await tx.delete(agentVersions).where(and(eq(agentVersions.agentId, id), lte(agentVersions.version, newestPruned)));
      return updated;
    });
  } catch (error) {
    rethrowNameTaken(error, attemptedName);
  }
}

/**
 * Updates the fields given in `changes` (the others keep their value); a new version records it.
 * `changes` may be worked out from the current data, read in the transaction (what it throws
 * aborts the update). AgentDelegateInvalidError when the resulting `delegateTo` is not another
 * existing agent.
 */
export async function updateAgent(
  db: Database,
  id: string,
  changesOf: Partial<AgentData> | ((current: AgentData) => Partial<AgentData>),
  limits: Pick<AgentStoreLimits, 'versionsPerAgent'>,
  changelog: Changelog,
): Promise<Agent | null> {
  return writeNextVersion(db, id, limits, changelog, async (current, tx) => {
    const changes = typeof changesOf === 'function' ? changesOf(current) : changesOf;
    const next = { ...current, ...changes };
    // Only a delegate this update sets is checked: one deleted since is cleared by the delete.
    if (changes.delegateTo !== undefined) await checkDelegate(tx, id, next.delegateTo);
    return next;
  });
}

/**
 * Brings back the data of `version` as a new version (history is never rewritten), with the
 * changelog `Restaurado para versão <n>`. Null when the agent does not exist; AgentVersionNotFoundError
 * when it has no such version. A delegate that no longer exists is not brought back (none).
 */
export async function restoreAgentVersion(
  db: Database,
  id: string,
  version: number,
  limits: Pick<AgentStoreLimits, 'versionsPerAgent'>,
): Promise<Agent | null> {
  return writeNextVersion(db, id, limits, AGENT_CHANGELOG.restored(version), async (_current, tx) => {
    const [row] = await tx
      .select({ data: agentVersions.data })
      .from(agentVersions)
      .where(and(eq(agentVersions.agentId, id), eq(agentVersions.version, version)));
    if (!row) throw new AgentVersionNotFoundError(id, version);
    const data = agentDataOf(row.data);
    return (await isValidDelegate(tx, id, data.delegateTo)) ? data : { ...data, delegateTo: null };
  });
}

/** Newest first. Versions written before the panel's fields read with their defaults and no changed fields. */
export async function listAgentVersions(db: Database, id: string): Promise<AgentVersion[]> {
  const rows = await db
    .select({
      version: agentVersions.version,
      createdAt: agentVersions.createdAt,
      data: agentVersions.data,
      changelog: agentVersions.changelog,
      changedFields: agentVersions.changedFields,
    })
    .from(agentVersions)
    .where(eq(agentVersions.agentId, id))
    .orderBy(desc(agentVersions.version));
  return rows.map((row) => ({
    ...row,
    data: agentDataOf(row.data),
    changedFields: predatesPanelFields(row.data) ? null : (row.changedFields as (keyof AgentData)[]),
  }));
}

/**
 * Deletes the agent; its versions and secrets go with it (foreign keys ON DELETE CASCADE). Agents
 * that delegated to it delegate to none (their versions keep the id; a restore drops it).
 */
export async function deleteAgent(db: Database, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [result] = await tx.delete(agents).where(eq(agents.id, id));
    if (result.affectedRows === 0) return false;
    await tx.update(agents).set({ delegateTo: null }).where(eq(agents.delegateTo, id));
    return true;
  });
}
