import { deleteSecret as removeSecret, listSecretNames, putSecret, secretContext, type SecretName } from '../../db/agent-secrets-store';
import { sealSecret, secretsKeyFromHex } from '../../lib/secret-box';
import { NotFoundError } from '../errors';
import { getAgent } from './agents';
import type { AgentDeps } from './deps';
import { storeErrorsTranslated } from './store-errors';

/** An agent's secrets: names only out, values sealed in (docs/agents.md). */

export async function listSecrets(deps: Pick<AgentDeps, 'db'>, agentId: string): Promise<SecretName[]> {
  const agent = await getAgent(deps, agentId);
  return listSecretNames(deps.db, agent.id);
}

/** Creates or replaces a secret by name; UnavailableError without a key. The value is never returned. */
export async function setSecret(
  deps: Pick<AgentDeps, 'db' | 'secretsKey'>,
  agentId: string,
  name: string,
  value: string,
): Promise<{ created: boolean; secret: SecretName }> {
  const { id } = await getAgent(deps, agentId);
  const key = await storeErrorsTranslated(async () => secretsKeyFromHex(deps.secretsKey));
  const stored = await putSecret(deps.db, id, name, sealSecret(key, value, secretContext(id, name)));
  // Deleted between the two reads.
  if (!stored) throw new NotFoundError(`agent ${id} not found`);
  return { created: stored.outcome === 'created', secret: stored.secret };
}

export async function deleteSecret(deps: Pick<AgentDeps, 'db'>, agentId: string, name: string): Promise<void> {
  const { id } = await getAgent(deps, agentId);
  if (!(await removeSecret(deps.db, id, name))) throw new NotFoundError(`agent ${id} has no secret named "${name}"`);
}
