import { and, asc, eq } from 'drizzle-orm';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { openSecret, SecretDecryptionError, secretsKeyFromHex, type SealedSecret } from '../lib/secret-box';
import type { Database } from './index';
import { agentSecrets } from './schema';
import { hasErrorCode } from './mysql-errors';

export interface SecretName {
  name: string;
  createdAt: Date;
}

/** What a ciphertext is bound to (GCM additional data): a row moved to another agent or name does not open. */
export function secretContext(agentId: string, name: string): string {
  return `agent-secret\u0000${agentId}\u0000${name}`;
}

/** Names and creation times only: values never leave the database through this module but for a run. */
export async function listSecretNames(db: Database, agentId: string): Promise<SecretName[]> {
  return db
    .select({ name: agentSecrets.name, createdAt: agentSecrets.createdAt })
    .from(agentSecrets)
    .where(eq(agentSecrets.agentId, agentId))
    .orderBy(asc(agentSecrets.name));
}

/** MariaDB's "parent row missing" error: the agent was deleted meanwhile. */
const isMissingParent = (error: unknown): boolean => hasErrorCode(error, 'ER_NO_REFERENCED_ROW_2');

/**
 * Stores a sealed secret under its name, replacing an existing value of that name.
 * Returns whether it was created or replaced, or null when the agent does not exist.
 */
export async function putSecret(
  db: Database,
  agentId: string,
  name: string,
  sealed: SealedSecret,
): Promise<{ outcome: 'created' | 'replaced'; secret: SecretName } | null> {
  const createdAt = new Date();
  try {
    const [result] = await db
      .insert(agentSecrets)
      .values({ agentId, name, ...sealed, createdAt })
      .onDuplicateKeyUpdate({ set: { ...sealed, createdAt } });
    // MySQL counts an upsert that updated as two affected rows.
    return { outcome: result.affectedRows === 1 ? 'created' : 'replaced', secret: { name, createdAt } };
  } catch (error) {
    if (isMissingParent(error)) return null;
    throw error;
  }
}

export async function deleteSecret(db: Database, agentId: string, name: string): Promise<boolean> {
  const [result] = await db.delete(agentSecrets).where(and(eq(agentSecrets.agentId, agentId), eq(agentSecrets.name, name)));
  return result.affectedRows > 0;
}

interface SecretRow extends RowDataPacket {
  name: string;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
}

/**
 * The agent's secrets in clear, by name, for the environment of its process only (never an API
 * answer nor a log). `key` is AGENT_SECRETS_KEY (`config.orchestration.secretsKey`). An agent
 * without secrets (or unknown) gives `{}` even with no key; with secrets and no key it throws
 * SecretsKeyMissingError, and a secret that does not decrypt throws SecretDecryptionError.
 */
export async function agentSecretsForRun(pool: Pool, agentId: string, key: string | null): Promise<Record<string, string>> {
  const [rows] = await pool.query<SecretRow[]>(
    'SELECT name, ciphertext, iv, auth_tag FROM agent_secrets WHERE agent_id = ? ORDER BY name',
    [agentId],
  );
  if (rows.length === 0) return {};
  const keyBytes = secretsKeyFromHex(key);
  const environment: Record<string, string> = {};
  for (const row of rows) {
    const sealed = { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag };
    try {
      environment[row.name] = openSecret(keyBytes, sealed, secretContext(agentId, row.name));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SecretDecryptionError(`o segredo "${row.name}" do agente ${agentId}: ${reason}`);
    }
  }
  return environment;
}
