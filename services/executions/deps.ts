import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import type { Database } from '../../db';
import type { Logger } from '../../lib/logger';
import type { RepositoryConfig } from '../repos';

/**
 * What the execution use cases need, passed explicitly so that the API process and a worker's activity
 * (a schedule, a webhook) call them alike: a worker builds this from its own pool, Redis connection and
 * Temporal client, with no HTTP server and no `ApiResources` (api/use-case-deps.ts builds it for the API process).
 */
export interface ExecutionDeps {
  db: Database;
  /** Starts and cancels the executions' workflows. */
  temporal: Pick<Client, 'workflow'>;
  /** Publishes the live lifecycle messages (`execution.queued`, ...); a command connection is enough. */
  redis: Redis;
  logger: Logger;
  /** AGENT_WORKDIR_ROOTS: every working directory must lie under one of them. */
  workdirRoots: readonly string[];
  /** The configured repositories (docs/repositories.md); absent: none, and a `repoName` is unknown. */
  repositories?: RepositoryConfig;
}
