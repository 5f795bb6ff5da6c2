import type { Database } from '../../db';
import type { AgentStoreLimits } from '../../db/agents-store';

/** What the agent use cases need, passed explicitly (docs/application-layer.md). */
export interface AgentDeps {
  db: Database;
  /** AGENT_WORKDIR_ROOTS: an agent's working directory must lie under one of them. */
  workdirRoots: readonly string[];
  /** AGENTS_MAX and AGENT_VERSIONS_KEPT, held by the store on every write. */
  limits: AgentStoreLimits;
  /** AGENT_SECRETS_KEY (hex); null: secrets can be listed and deleted, not stored. */
  secretsKey: string | null;
}
