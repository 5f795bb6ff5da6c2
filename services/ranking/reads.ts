import { z } from 'zod';
import { decompressedResponse, readStoredPage, STORED_PAGE_SIZE, type StoredPage } from '../../db/ranking-pages';
import {
  entriesWithDetailsByIds,
  entryById,
  listEntries,
  listEntriesWithDetails,
  pageOfEntries,
  rankingTotals,
  searchByName,
  storedSealCodes,
  type BlockKey,
  type NameMatch,
  type StoredEntryWithDetails,
} from '../../db/ranking-queries';
import { readStatisticsSnapshot, type RankingStatistics } from '../../db/ranking-statistics';
import { rankingPageFields, rankingPageFieldsSchema } from '../../domain/ranking-page';
import {
  detailedRankingEntrySchema,
  needsIndexDocument,
  rankingEntryJson,
  rankingEntrySchema,
  rankingSummarySchema,
  toRankingSummary,
} from '../../domain/ranking-entry';
import { sealCatalogue, sealCatalogueEntry, sealCatalogueEntrySchema } from '../../domain/seals';
import { jsonWithRawList } from '../../lib/raw-json';
import { UnavailableError } from '../errors';
import { ENRICHMENT_FIELDS, fetchChangedDocuments } from '../persons';
import { isoDateTime } from '../view-schema';
import type { RankingDeps } from './deps';

/**
 * The ranking reads (docs/ranking-api.md): MySQL for the ranking, the person index only for entries
 * whose stored complements rules 3 and 4 may complete (services/persons.ts). While the ranking has
 * no entries they fail with an UnavailableError carrying NOT_PROCESSED_DETAIL (503).
 */

/* The answers' schemas (docs/ranking-api.md). The pages, /ranking/detalhado and the consultant detail are written as bytes: these say what the bytes hold. */

const count = z.number().int().min(0);

/** GET /ranking/paginado. */
export const rankingPageSchema = z
  .object({
    ...rankingPageFieldsSchema.shape,
    consultores: z.array(rankingEntrySchema).meta({ description: 'Position order, best first' }),
  })
  .meta({ id: 'RankingPage' });

/** GET /ranking. */
export const rankingListSchema = z
  .object({
    total: count.meta({ description: 'Entries of the ranking; with `componente`, those scoring in that block' }),
    limite: z.number().int(),
    offset: z.number().int(),
    consultores: z.array(rankingSummarySchema),
  })
  .meta({ id: 'RankingList' });
export type RankingListView = z.infer<typeof rankingListSchema>;

/** GET /ranking/detalhado. */
export const rankingDetailedSchema = z
  .object({
    total: count.meta({ description: 'Entries of the ranking; with `componente`, those scoring in that block' }),
    limite: z.number().int(),
    consultores: z.array(detailedRankingEntrySchema),
  })
  .meta({ id: 'RankingDetailed' });

/** GET /ranking/selos. */
export const sealListSchema = z
  .object({
    selos: z
      .array(sealCatalogueEntrySchema)
      .meta({ description: 'The catalogue in its order, then any other code found in the ranking (group `outros`)' }),
  })
  .meta({ id: 'SealList' });
export type SealList = z.infer<typeof sealListSchema>;

/** An item of GET /ranking/busca (db/ranking-queries.ts#NameMatch). */
export const nameMatchSchema = z
  .object({ id_pessoa: z.number().int(), nome: z.string(), posicao: z.number().int().min(1), pontuacao_total: z.number() })
  .meta({ id: 'NameMatch' });
export type NameMatchView = z.infer<typeof nameMatchSchema>;

const rounded = z.number().meta({ description: '2 decimals' });

/** GET /ranking/estatisticas: the snapshot of the last completed run (db/ranking-statistics.ts#RankingStatistics). */
export const rankingStatisticsSchema = z
  .object({
    total_consultores: count,
    total_ativos: count,
    total_inativos: count,
    ultima_atualizacao: isoDateTime.nullable().meta({ description: 'When the snapshot was computed (end of the last completed run)' }),
    pontuacao_media: rounded,
    pontuacao_maxima: rounded,
    pontuacao_minima: rounded,
    media_blocos: z
      .object({ bloco_a: rounded, bloco_b: rounded, bloco_c: rounded, bloco_d: rounded, bloco_e: rounded })
      .meta({ description: 'Average score of each block' }),
    distribuicao: z
      .array(
        z.object({
          faixa: z.string().meta({ description: 'Range of the total score: `800+`, `600-799`, `400-599`, `200-399`, `0-199`' }),
          quantidade: count,
          percentual: z.number().meta({ description: 'Percent of all entries, 2 decimals' }),
        }),
      )
      .meta({ description: 'One item per range, best first' }),
  })
  .meta({ id: 'RankingStatistics' });
export type RankingStatisticsView = z.infer<typeof rankingStatisticsSchema>;

/** GET /ranking/posicao/{id_pessoa}. */
export const rankingPositionSchema = z
  .object({
    id_pessoa: z.number().int(),
    nome: z.string().meta({ description: "'' when not found" }),
    posicao: z.number().int().min(1).nullable().meta({ description: 'Null when the person is not in the ranking' }),
    total_consultores: count,
    pontuacao_total: z.number(),
    bloco_a: z.number(),
    bloco_b: z.number(),
    bloco_c: z.number(),
    bloco_d: z.number(),
    bloco_e: z.number(),
    ativo: z.boolean(),
    encontrado: z.boolean().meta({ description: 'False: not in the ranking; every score is then 0 and `ativo` false' }),
  })
  .meta({ id: 'RankingPosition' });
export type RankingPosition = z.infer<typeof rankingPositionSchema>;

/** Compile-time: the db's records are exactly what the schemas describe. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Plain<T> = T extends ReadonlyArray<infer E> ? Plain<E>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;
const statisticsMatch: Same<Plain<RankingStatistics>, Plain<RankingStatisticsView>> = true;
const nameMatchMatches: Same<Plain<NameMatch>, Plain<NameMatchView>> = true;
void statisticsMatch;
void nameMatchMatches;

export const NOT_PROCESSED_DETAIL = 'O ranking ainda não foi processado. Chame POST /api/v1/ranking/processar para processá-lo.';

const notProcessed = () => new UnavailableError(NOT_PROCESSED_DETAIL);

/** Totals of the persisted ranking; UnavailableError while it has no entries (states table). */
async function requireRanking(deps: RankingDeps) {
  const totals = await rankingTotals(deps.pool);
  if (totals.total === 0) throw notProcessed();
  return totals;
}

/** Ranking entries as JSON; the index is read for those whose stored data rules 3 and 4 complete, if changed since. */
async function entriesJson(
  deps: RankingDeps,
  entries: StoredEntryWithDetails[],
  extra: (index: number) => Record<string, unknown> = () => ({}),
): Promise<Buffer[]> {
  const incomplete = entries.filter((entry) => needsIndexDocument(entry.complementos));
  const documents = await fetchChangedDocuments(deps.persons, incomplete, ENRICHMENT_FIELDS);
  return entries.map((entry, i) => rankingEntryJson(entry, documents.get(entry.id_pessoa), deps.cvBaseUrl, extra(i)));
}

/** A JSON answer as bytes; `gzip`: the bytes are the gzip-compressed JSON (send with `Content-Encoding: gzip`). */
export interface JsonBytes {
  body: Buffer;
  gzip: boolean;
}

/**
 * A stored page (db/ranking-pages.ts) as served. When no index document of its incomplete entries
 * changed since the run, the stored response goes out as it is: gzip-compressed when the client
 * accepts gzip (browsers do), decompressed otherwise. Entries whose document changed are rendered
 * again from it and spliced over their stored bytes.
 */
async function storedPageBytes(deps: RankingDeps, page: StoredPage, acceptsGzip: boolean): Promise<JsonBytes> {
  const documents = await fetchChangedDocuments(deps.persons, page.incomplete, ENRICHMENT_FIELDS);
  if (documents.size === 0 && acceptsGzip) return { body: page.gzipped, gzip: true };
  const response = decompressedResponse(page);
  if (documents.size === 0) return { body: response, gzip: false };
  const entries = new Map((await entriesWithDetailsByIds(deps.pool, [...documents.keys()])).map((entry) => [entry.id_pessoa, entry]));
  const parts: Buffer[] = [];
  let at = 0;
  for (const ref of page.incomplete) {
    const entry = entries.get(ref.id_pessoa);
    const doc = documents.get(ref.id_pessoa);
    if (!entry || !doc) continue;
    parts.push(response.subarray(at, ref.start), rankingEntryJson(entry, doc, deps.cvBaseUrl));
    at = ref.end;
  }
  parts.push(response.subarray(at));
  return { body: Buffer.concat(parts), gzip: false };
}

export interface PageQuery {
  page: number;
  size: number;
  ativo?: boolean;
  /** Seal codes, normalised (api/ranking/ranking-routes.ts#parseSealFilter). */
  selos: string[];
}

/** GET /ranking/paginado: the stored page for the common request, else one query with its totals. */
export async function rankingPage(deps: RankingDeps, query: PageQuery, acceptsGzip: boolean): Promise<JsonBytes> {
  const filter = { ativo: query.ativo, selos: query.selos };
  // The common request, the unfiltered page of the default size: rendered by the job, one row.
  if (query.size === STORED_PAGE_SIZE && query.ativo === undefined && filter.selos.length === 0) {
    const stored = await readStoredPage(deps.pool, query.page, deps.cvBaseUrl);
    if (stored && stored.totals.total === 0) throw notProcessed();
    if (stored?.page) return storedPageBytes(deps, stored.page, acceptsGzip);
  }
  // The totals come with the page (one round trip for the common unfiltered page).
  const { totals, total, entries } = await pageOfEntries(deps.pool, filter, { offset: (query.page - 1) * query.size, limit: query.size });
  if (totals.total === 0) throw notProcessed();
  return {
    body: jsonWithRawList(rankingPageFields(total, query.page, query.size), 'consultores', await entriesJson(deps, entries)),
    gzip: false,
  };
}

/** GET /ranking: summaries, by position or by one block's score. */
export async function rankingList(
  deps: RankingDeps,
  query: { limite: number; offset: number; componente?: BlockKey },
): Promise<RankingListView> {
  const totals = await requireRanking(deps);
  const { total, entries } = await listEntries(deps.pool, { block: query.componente, offset: query.offset, limit: query.limite }, totals);
  return {
    total,
    limite: query.limite,
    offset: query.offset,
    consultores: entries.map((entry, i) => toRankingSummary(entry, query.componente ? query.offset + i + 1 : entry.posicao)),
  };
}

/** GET /ranking/detalhado: whole entries as JSON bytes. */
export async function rankingDetailed(deps: RankingDeps, query: { limite: number; componente?: BlockKey }): Promise<Buffer> {
  const totals = await requireRanking(deps);
  const { total, entries } = await listEntriesWithDetails(deps.pool, { block: query.componente, offset: 0, limit: query.limite }, totals);
  const detailed = await entriesJson(deps, entries, (i) => ({ rank: query.componente ? i + 1 : entries[i]?.posicao }));
  return jsonWithRawList({ total, limite: query.limite }, 'consultores', detailed);
}

/** GET /ranking/selos: the catalogue, then codes found in the ranking that it does not know. */
export async function sealList(deps: RankingDeps): Promise<SealList> {
  const known = sealCatalogue();
  const knownCodes = new Set(known.map((entry) => entry.codigo));
  const others = (await storedSealCodes(deps.pool)).filter((code) => !knownCodes.has(code)).map(sealCatalogueEntry);
  return { selos: [...known, ...others] };
}

/** GET /ranking/busca: `words` must all match (api/ranking/ranking-routes.ts#searchWords). */
export function searchRanking(deps: RankingDeps, words: string[], limit: number): Promise<NameMatchView[]> {
  return searchByName(deps.pool, words, limit);
}

export async function rankingStatistics(deps: RankingDeps): Promise<RankingStatisticsView> {
  const statistics = await readStatisticsSnapshot(deps.pool);
  if (!statistics || statistics.total_consultores === 0) throw notProcessed();
  return statistics;
}

/** GET /ranking/posicao/{id}: the position, or `encontrado: false` with zeros. */
export async function rankingPosition(deps: RankingDeps, idPessoa: number): Promise<RankingPosition> {
  const totals = await requireRanking(deps);
  const entry = await entryById(deps.pool, idPessoa);
  return entry
    ? {
        id_pessoa: entry.id_pessoa,
        nome: entry.nome,
        posicao: entry.posicao,
        total_consultores: totals.total,
        pontuacao_total: entry.pontuacao_total,
        bloco_a: entry.bloco_a,
        bloco_b: entry.bloco_b,
        bloco_c: entry.bloco_c,
        bloco_d: entry.bloco_d,
        bloco_e: entry.bloco_e,
        ativo: entry.ativo,
        encontrado: true,
      }
    : {
        id_pessoa: idPessoa,
        nome: '',
        posicao: null,
        total_consultores: totals.total,
        pontuacao_total: 0,
        bloco_a: 0,
        bloco_b: 0,
        bloco_c: 0,
        bloco_d: 0,
        bloco_e: 0,
        ativo: false,
        encontrado: false,
      };
}
