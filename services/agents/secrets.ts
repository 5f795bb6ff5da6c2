import { z } from 'zod';
import { deleteSecret as removeSecret, listSecretNames, putSecret, secretContext } from '../../db/agent-secrets-store';
import { sealSecret, secretsKeyFromHex } from '../../lib/secret-box';
import { agentNotFound, NotFoundError } from '../errors';
import { getAgent } from './agents';
import type { AgentDeps } from './deps';
import { storeErrorsTranslated } from './store-errors';
import { isoDateTime } from '../view-schema';

/** An agent's secrets: names only out, values sealed in (docs/agents.md; contract 3.2). */

/** A secret as listed: its name and when its value was last set; never the value. */
export const secretViewSchema = z
  .object({
    name: z.string(),
    created_at: isoDateTime.meta({ description: 'When its value was last set' }),
  })
  .meta({ id: 'AgentSecret' });
export type SecretView = z.infer<typeof secretViewSchema>;

/** What POST /agents/{id}/secrets answers for a new name (201); the value is never returned. */
export const secretCreatedSchema = z.object({ name: z.string(), created: z.literal(true) }).meta({ id: 'AgentSecretCreated' });
/** What POST /agents/{id}/secrets answers when the value of an existing name was replaced (200). */
export const secretUpdatedSchema = z.object({ name: z.string(), updated: z.literal(true) }).meta({ id: 'AgentSecretUpdated' });
export type SecretStored = z.infer<typeof secretCreatedSchema> | z.infer<typeof secretUpdatedSchema>;

export async function listSecrets(deps: Pick<AgentDeps, 'db'>, agentId: string): Promise<SecretView[]> {
  const agent = await getAgent(deps, agentId);
  return (await listSecretNames(deps.db, agent.id)).map((secret) => ({ name: secret.name, created_at: secret.createdAt.toISOString() }));
}

/**
 * Creates or replaces a secret by name; UnavailableError without a key. The value is never returned:
 * `{name, created: true}` for a new name, `{name, updated: true}` for a replaced value.
 */
export async function setSecret(
  deps: Pick<AgentDeps, 'db' | 'secretsKey'>,
  agentId: string,
  name: string,
  value: string,
): Promise<SecretStored> {
  const { id } = await getAgent(deps, agentId);
  const key = await storeErrorsTranslated(async () => secretsKeyFromHex(deps.secretsKey));
  const stored = await putSecret(deps.db, id, name, sealSecret(key, value, secretContext(id, name)));
  // Deleted between the two reads.
  if (!stored) throw agentNotFound(id);
  return stored.outcome === 'created' ? { name, created: true } : { name, updated: true };
}

export async function deleteSecret(deps: Pick<AgentDeps, 'db'>, agentId: string, name: string): Promise<void> {
  const { id } = await getAgent(deps, agentId);
  if (!(await removeSecret(deps.db, id, name))) throw new NotFoundError(`O agente ${id} não tem um segredo chamado "${name}"`);
}
