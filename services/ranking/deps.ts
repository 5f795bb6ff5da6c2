import type { Pool } from 'mysql2/promise';
import type { Logger } from '../../lib/logger';
import type { PersonIndex } from '../persons';

/** What the ranking reads need, passed explicitly (docs/application-layer.md). */
export interface RankingDeps {
  /** The ranking store (raw mysql2 pool: the reads splice stored bytes). */
  pool: Pool;
  persons: PersonIndex;
  /** CV_BASE_URL. */
  cvBaseUrl: string;
  logger: Logger;
}
