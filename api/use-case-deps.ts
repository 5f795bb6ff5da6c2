import { PERSON_INDEX_BASE } from '../domain/person-index';
import { indexName } from '../lib/elasticsearch';
import type { AgentDeps } from '../services/agents';
import type { ExecutionDeps } from '../services/executions';
import type { PersonIndex } from '../services/persons';
import type { JobDeps, RankingDeps } from '../services/ranking';
import type { ScheduleDeps } from '../services/schedules';
import type { WebhookDeps } from '../services/webhooks';
import type { ApiResources } from './resources';

/**
 * What each use case needs, taken from the API process's resources (api/resources.ts). A worker's
 * activity builds the same dependencies from its own connections (workers/), so the use cases never
 * see this process's composition (docs/application-layer.md).
 */

export function executionDepsOf(resources: ApiResources): ExecutionDeps {
  return {
    db: resources.database.db,
    temporal: resources.temporal.client,
    redis: resources.redis,
    logger: resources.logger,
    workdirRoots: resources.config.orchestration.workdirRoots,
    repositories: resources.config.orchestration.repositories,
  };
}

export function agentDepsOf(resources: ApiResources): AgentDeps {
  const { workdirRoots, limits, secretsKey } = resources.config.orchestration;
  return { db: resources.database.db, workdirRoots, limits, secretsKey };
}

export function scheduleDepsOf(resources: ApiResources): ScheduleDeps {
  return {
    db: resources.database.db,
    temporal: resources.temporal.client,
    logger: resources.logger,
    timezone: resources.config.orchestration.scheduleTimezone,
  };
}

export function webhookDepsOf(resources: ApiResources): WebhookDeps {
  const { secretsKey, webhooks } = resources.config.orchestration;
  return { ...executionDepsOf(resources), secretsKey, globalSecret: webhooks.secret };
}

function personIndexOf(resources: ApiResources): PersonIndex {
  return { es: resources.elasticsearch, index: indexName(resources.config.elasticsearch, PERSON_INDEX_BASE), logger: resources.logger };
}

export function rankingDepsOf(resources: ApiResources): RankingDeps {
  return {
    pool: resources.database.pool,
    persons: personIndexOf(resources),
    cvBaseUrl: resources.config.ranking.cvBaseUrl,
    logger: resources.logger,
  };
}

export function jobDepsOf(resources: ApiResources): JobDeps {
  return {
    db: resources.database.db,
    temporal: resources.temporal,
    timeoutMs: resources.config.dependencyTimeoutMs,
    logger: resources.logger,
  };
}
