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
  type StoredEntryWithDetails,
} from '../../db/ranking-queries';
import { readStatisticsSnapshot } from '../../db/ranking-statistics';
import { rankingPageFields } from '../../domain/ranking-page';
import { needsIndexDocument, rankingEntryJson, toRankingSummary } from '../../domain/ranking-entry';
import { sealCatalogue, sealCatalogueEntry } from '../../domain/seals';
import { jsonWithRawList } from '../../lib/raw-json';
import { UnavailableError } from '../errors';
import { ENRICHMENT_FIELDS, fetchChangedDocuments } from '../persons';
import type { RankingDeps } from './deps';

/**
 * The ranking reads (docs/ranking-api.md): MySQL for the ranking, the person index only for entries
 * whose stored complements rules 3 and 4 may complete (services/persons.ts). While the ranking has
 * no entries they fail with an UnavailableError carrying NOT_PROCESSED_DETAIL (503).
 */

export const NOT_PROCESSED_DETAIL =
  'O ranking ainda não foi processado. Chame POST /api/v1/ranking/processar para processá-lo.';

const notProcessed = () => new UnavailableError(NOT_PROCESSED_DETAIL);

/** Totals of the persisted ranking; UnavailableError while it has no entries (states table). */
async function requireRanking(deps: RankingDeps) {
  const totals = await rankingTotals(deps.pool);
  if (totals.total === 0) throw notProcessed();
  return totals;
}

/** Ranking entries as JSON; the index is read for those whose stored data rules 3 and 4 complete, if changed since. */
async function entriesJson(deps: RankingDeps, entries: StoredEntryWithDetails[], extra: (index: number) => Record<string, unknown> = () => ({})): Promise<Buffer[]> {
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
  return { body: jsonWithRawList(rankingPageFields(total, query.page, query.size), 'consultores', await entriesJson(deps, entries)), gzip: false };
}

/** GET /ranking: summaries, by position or by one block's score. */
export async function rankingList(deps: RankingDeps, query: { limite: number; offset: number; componente?: BlockKey }) {
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
export async function sealList(deps: RankingDeps) {
  const known = sealCatalogue();
  const knownCodes = new Set(known.map((entry) => entry.codigo));
  const others = (await storedSealCodes(deps.pool)).filter((code) => !knownCodes.has(code)).map(sealCatalogueEntry);
  return { selos: [...known, ...others] };
}

/** GET /ranking/busca: `words` must all match (api/ranking/ranking-routes.ts#searchWords). */
export function searchRanking(deps: RankingDeps, words: string[], limit: number) {
  return searchByName(deps.pool, words, limit);
}

export async function rankingStatistics(deps: RankingDeps) {
  const statistics = await readStatisticsSnapshot(deps.pool);
  if (!statistics || statistics.total_consultores === 0) throw notProcessed();
  return statistics;
}

/** GET /ranking/posicao/{id}: the position, or `encontrado: false` with zeros. */
export async function rankingPosition(deps: RankingDeps, idPessoa: number) {
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
