import { randomUUID } from 'node:crypto';
import { jsonCall } from './json-api';

/**
 * An agent created through POST /api/agents with the panel's body, named `<name> <8 hex>` so suites
 * never collide; `fields` (description, tags, status) and `config` override the defaults.
 */
export async function createPanelAgent(
  serverUrl: string,
  name: string,
  { fields = {}, config = {}, clientId }: { fields?: Record<string, unknown>; config?: Record<string, unknown>; clientId?: string } = {},
): Promise<{ id: string; name: string }> {
  const agentName = `${name} ${randomUUID().slice(0, 8)}`;
  const created = await jsonCall(
    serverUrl,
    'POST',
    '/api/agents',
    { agent_name: agentName, description: '', tags: [], status: 'active', ...fields, config: { model: 'claude-sonnet-4-6', ...config } },
    clientId === undefined ? {} : { clientId },
  );
  if (created.status !== 201) throw new Error(`agent "${agentName}" not created: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.id as string, name: agentName };
}
