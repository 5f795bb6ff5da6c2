import { heartbeat } from '@temporalio/activity';
import type { Client as ElasticsearchClient, estypes } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import type { Database } from '../db';
import { recordRunEnd, recordRunProgress, recordRunStart, type RunOrigin, type RunPhase } from '../db/ranking-job-runs';
import { clearRanking, forgetPersonsRead } from '../db/ranking-store';
import { rankingReferenceDate } from '../db/ranking-statistics';
import type { PersonDocument } from '../domain/person-document';
import { referenceDateOf } from '../domain/scoring/dates';
import type { Logger } from '../lib/logger';
import { rankingJobDocuments, rankingJobDuration, rankingJobEntriesWritten } from '../lib/metrics';
import { settleRanking } from './ranking-finish';
import { setAsideUnchanged, storeSlice, uuidsOfIndices } from './ranking-slice';

/** A `search_after` position in the point-in-time (null = from the start). */
export type SortCursor = estypes.SortResults | null;

export interface ScoreBatchInput {
  pitId: string;
  after: SortCursor;
  batchSize: number;
  runId: string;
  referenceDate: string;
}

export interface RankingActivityDeps {
  pool: Pool;
  db: Database;
  es: ElasticsearchClient;
  personIndex: string;
  /** CV_BASE_URL: the stored pages carry cv urls built with it. */
  cvBaseUrl: string;
  logger: Logger;
}

/** How long Elasticsearch keeps the point-in-time between two reads of the job. */
const PIT_KEEP_ALIVE = '15m';
const SHARD_DOC_ORDER: estypes.Sort = [{ _shard_doc: 'asc' }];
/** Documents read, scored and stored at a time inside a batch (bounds the worker's memory). */
const SLICE_SIZE = 500;
/**
 * Curriculum fields neither the scoring nor the stored details use: left in the index, they cut a
 * batch's transfer and the worker's memory.
 */
export const FIELDS_NOT_RANKED: Array<keyof PersonDocument> = ['enderecos', 'empregos', 'projetos'];

/**
 * A job's duration (`ranking_job_duration_seconds`) by how it ended, once: when this call is the one
 * that ended it (the job's own end here, or the reconciler's for a job whose workflow is gone).
 */
export function countRankingJobEnd(
  estado: 'concluido' | 'falhou' | 'cancelado',
  finishedAt: Date,
  ended: { wasOpen: boolean; startedAt: Date } | null,
): void {
  if (!ended?.wasOpen) return;
  const status = estado === 'concluido' ? 'completed' : estado === 'falhou' ? 'failed' : 'canceled';
  rankingJobDuration.observe({ status }, Math.max(0, (finishedAt.getTime() - ended.startedAt.getTime()) / 1000));
}

export function createRankingActivities(deps: RankingActivityDeps) {
  const { pool, db, es, personIndex, cvBaseUrl, logger } = deps;

  /** The documents of `ids` as the point-in-time holds them, with the fields the ranking reads. */
  const readWhole = (pitId: string, ids: string[]) =>
    es.search<PersonDocument>({
      pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
      size: ids.length,
      query: { ids: { values: ids } },
      track_total_hits: false,
      _source_excludes: FIELDS_NOT_RANKED,
      seq_no_primary_term: true,
    });

  const closePit = async (pitId: string) => {
    if (!pitId) return;
    await es.closePointInTime({ id: pitId }).catch((error: unknown) => logger.warn({ err: error }, 'closing the point-in-time failed'));
  };

  return {
    async startRun(input: { runId: string; origem: RunOrigin; limparAntes: boolean; startedAt: string }): Promise<void> {
      await recordRunStart(db, { ...input, startedAt: new Date(input.startedAt) });
      if (input.limparAntes) await clearRanking(pool);
      else await forgetPersonsRead(pool);
    },

    /** Opens the point-in-time every batch reads through, and counts the documents for the progress. */
    async openIndexSnapshot(): Promise<{ pitId: string; total: number }> {
      const pit = await es.openPointInTime({ index: personIndex, keep_alive: PIT_KEEP_ALIVE });
      const { count } = await es.count({ index: personIndex });
      return { pitId: pit.id, total: count };
    },

    /**
     * Finds where the next batches start, reading sort values only (no _source): the parent passes
     * cursors to its children, never documents.
     */
    async planBatches(input: { pitId: string; after: SortCursor; batchSize: number; batches: number }) {
      let pitId = input.pitId;
      let after = input.after;
      const starts: SortCursor[] = [];
      let exhausted = false;
      while (starts.length < input.batches) {
        const page = await es.search({
          pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
          size: input.batchSize,
          sort: SHARD_DOC_ORDER,
          // Only where each document sorts: no source, no stored fields (not even _id), only sort values in the answer.
          _source: false,
          stored_fields: '_none_',
          filter_path: ['pit_id', 'hits.hits.sort'],
          track_total_hits: false,
          ...(after ? { search_after: after } : {}),
        });
        pitId = page.pit_id ?? pitId;
        // filter_path leaves `hits` out of an answer without any.
        const hits = page.hits?.hits ?? [];
        if (hits.length > 0) starts.push(after);
        if (hits.length < input.batchSize) {
          exhausted = true;
          break;
        }
        after = hits[hits.length - 1]?.sort ?? null;
      }
      return { pitId, starts, next: after, exhausted };
    },

    /**
     * Reads one batch through the point-in-time, scores it and stores what changed (idempotent), in
     * slices of SLICE_SIZE documents: the worker holds a quarter of a batch at a time, whatever the
     * batch size. An entry whose fingerprint (document revision and score) is the one stored is left
     * as it is; on the ranking's own day, a document whose version the stored entry was built from
     * that day is not even read whole (docs/ranking-job.md, "Unchanged documents"). `count`:
     * documents read; `written`: entries written.
     */
    async scoreBatch(input: ScoreBatchInput): Promise<{ count: number; written: number }> {
      const context = { runId: input.runId, referenceDate: input.referenceDate, indexUuids: await uuidsOfIndices(es, personIndex) };
      // A run on the day the stored ranking was computed at reads most documents by revision only.
      const sameDay = (await rankingReferenceDate(pool)) === input.referenceDate;
      let after = input.after;
      let count = 0;
      let written = 0;
      while (count < input.batchSize) {
        const size = Math.min(SLICE_SIZE, input.batchSize - count);
        const page = await es.search<PersonDocument>({
          pit: { id: input.pitId, keep_alive: PIT_KEEP_ALIVE },
          size,
          sort: SHARD_DOC_ORDER,
          track_total_hits: false,
          // Each entry records the revision it was built from (domain/document-revision.ts).
          seq_no_primary_term: true,
          // The ranking's own day again: revisions first, the documents that changed after.
          ...(sameDay ? { _source: false, docvalue_fields: ['id_pessoa'] } : { _source_excludes: FIELDS_NOT_RANKED }),
          ...(after ? { search_after: after } : {}),
        });
        let hits = page.hits.hits;
        let setAside = 0;
        if (sameDay) {
          const { unchanged, toRead } = await setAsideUnchanged(pool, hits, context);
          setAside = unchanged;
          hits = toRead.length === 0 ? [] : (await readWhole(input.pitId, toRead)).hits.hits;
        }
        const { read, written: writtenNow } = await storeSlice(pool, hits, context);
        rankingJobDocuments.inc(read + setAside);
        rankingJobEntriesWritten.inc(writtenNow);
        written += writtenNow;
        count += page.hits.hits.length;
        heartbeat({ stored: count });
        if (page.hits.hits.length < size) break;
        after = page.hits.hits[page.hits.hits.length - 1]?.sort ?? null;
      }
      return { count, written };
    },

    async recordProgress(input: { runId: string; fase: RunPhase; processados: number; total: number }): Promise<void> {
      await recordRunProgress(db, input.runId, input);
    },

    /**
     * Drops persons gone from the index, assigns positions (when an entry was written or removed),
     * renders the default pages where they changed, stores the statistics (which makes the pages
     * current), closes the run.
     */
    async finishRun(input: { runId: string; processados: number; pitId: string; referenceDate?: string }): Promise<void> {
      // Only a finish scheduled before this field existed lacks it: that run scored at its start day, most likely today.
      const referenceDate = input.referenceDate ?? referenceDateOf(new Date());
      await closePit(input.pitId);
      const { removed, finishedAt } = await settleRanking(pool, { runId: input.runId, cvBaseUrl, referenceDate }, (step) =>
        heartbeat(step),
      );
      countRankingJobEnd(
        'concluido',
        finishedAt,
        await recordRunEnd(db, input.runId, { estado: 'concluido', fase: 'concluido', finishedAt, processados: input.processados }),
      );
      logger.info({ runId: input.runId, processed: input.processados, removed }, 'ranking run finished');
    },

    /** Closes a failed or cancelled run, keeping the phase it stopped in. */
    async recordRunFailure(input: {
      runId: string;
      estado: 'falhou' | 'cancelado';
      fase: RunPhase;
      erro: string;
      pitId: string;
    }): Promise<void> {
      await closePit(input.pitId);
      const finishedAt = new Date();
      const ended = await recordRunEnd(db, input.runId, { estado: input.estado, fase: input.fase, finishedAt, erro: input.erro });
      countRankingJobEnd(input.estado, finishedAt, ended);
    },
  };
}

export type RankingActivities = ReturnType<typeof createRankingActivities>;
