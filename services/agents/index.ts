/** The agent use cases (docs/application-layer.md). */
export type { AgentDeps } from './deps';
export {
  createAgent,
  deleteAgent,
  duplicateAgent,
  exportAgent,
  getAgent,
  importAgent,
  listAgents,
  listVersions,
  restoreVersion,
  updateAgent,
  agentExportSchema,
} from './agents';
export { deleteSecret, listSecrets, secretCreatedSchema, secretUpdatedSchema, secretViewSchema, setSecret } from './secrets';
export { agentVersionViewSchema, agentViewSchema } from './view';
// What the request schemas check against and parse into: the store's and the run's own rules, one definition each.
export { AGENT_NAME_MAX } from '../../db/agents-store';
export type { AgentData, AgentDataInput } from '../../db/agent-data';
export { ENV_NAME } from '../../domain/env-names';
/** For the execution activity and tests: an agent's secrets in clear, for its process environment only. */
export { agentSecretsForRun } from '../../db/agent-secrets-store';
