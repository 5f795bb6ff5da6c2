import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
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
  type StoredEntryWithDetails,
} from '../../db/ranking-queries';
import { readStatisticsSnapshot } from '../../db/ranking-statistics';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { rankingPageFields } from '../../domain/ranking-page';
import { needsIndexDocument, rankingEntryJson, toRankingSummary } from '../../domain/ranking-entry';
import { normaliseSealCode, sealCatalogue, sealCatalogueEntry } from '../../domain/seals';
import { nameSearchKey } from '../../domain/text';
import { indexName } from '../../lib/elasticsearch';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { sendJsonWithRawList } from '../json-body';
import { parseInput } from '../validation';
import { boolParam, componentParam, intParam } from './params';
import { ENRICHMENT_FIELDS, fetchChangedDocuments } from './person-documents';

export const NOT_PROCESSED_DETAIL =
  'O ranking ainda não foi processado. Chame POST /api/v1/ranking/processar para processá-lo.';

const pageQuery = z.object({
  page: intParam(1).default(1),
  size: intParam(1, 1000).default(50),
  ativo: boolParam.optional(),
  selos: z.string().optional(),
});
const listQuery = z.object({
  limite: intParam(1, 1000).default(100),
  offset: intParam(0).default(0),
  componente: componentParam.optional(),
});
const detailedQuery = z.object({ limite: intParam(1, 1000).default(100), componente: componentParam.optional() });
/**
 * Bounds of a name search (docs/ranking-api.md): the text (a name, not a document) and the words
 * searched with, each of which is one more condition of the query.
 */
export const SEARCH_NAME_MAX = 200;
export const SEARCH_WORDS_MAX = 10;

const searchQuery = z.object({
  nome: z.string().trim().min(3, 'must have at least 3 characters').max(SEARCH_NAME_MAX),
  limit: intParam(1, 20).default(5),
});
// An id is a non-negative 32-bit integer (the column type); anything else cannot name a person.
const positionPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });


/** `selos` is comma-separated: items trimmed, empty ones dropped, compared in upper case. */
export function parseSealFilter(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(',').map(normaliseSealCode).filter(Boolean))];
}

/**
 * Words the name search uses: those of the name's search key with 3 characters or more, each once,
 * the first SEARCH_WORDS_MAX of them. Every word must match, so a word left out can only widen the
 * answer, never hide the person searched for.
 */
export function searchWords(name: string): string[] {
  const words = nameSearchKey(name)
    .split(' ')
    .filter((word) => word.length >= 3);
  return [...new Set(words)].slice(0, SEARCH_WORDS_MAX);
}

export function rankingRoutes(services: Services): Router {
  const { pool } = services.database;
  const personIndex = indexName(services.config.elasticsearch, PERSON_INDEX_BASE);
  const cvBaseUrl = services.config.ranking.cvBaseUrl;
  const router = new Router();

  /** Totals of the persisted ranking; 503 while it has no entries (states table). */
  const requireRanking = async () => {
    const totals = await rankingTotals(pool);
    if (totals.total === 0) throw new HttpError(503, NOT_PROCESSED_DETAIL);
    return totals;
  };

  /** Ranking entries as JSON; the index is read for those whose stored data rules 3 and 4 complete, if changed since. */
  const entriesJson = async (entries: StoredEntryWithDetails[], extra: (index: number) => Record<string, unknown> = () => ({})) => {
    const incomplete = entries.filter((entry) => needsIndexDocument(entry.complementos));
    const documents = await fetchChangedDocuments(services.elasticsearch, personIndex, incomplete, ENRICHMENT_FIELDS, services.logger);
    return entries.map((entry, i) => rankingEntryJson(entry, documents.get(entry.id_pessoa), cvBaseUrl, extra(i)));
  };

  /**
   * A stored page (db/ranking-pages.ts) as served. When no index document of its incomplete entries
   * changed since the run, the stored response goes out as it is: gzip-compressed to a client that
   * accepts gzip (browsers do), decompressed otherwise. Entries whose document changed are rendered
   * again from it and spliced over their stored bytes.
   */
  const sendStoredPage = async (ctx: ParameterizedContext, page: StoredPage): Promise<void> => {
    const documents = await fetchChangedDocuments(services.elasticsearch, personIndex, page.incomplete, ENRICHMENT_FIELDS, services.logger);
    ctx.type = 'application/json';
    if (documents.size === 0 && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = page.gzipped;
      return;
    }
    const response = decompressedResponse(page);
    if (documents.size === 0) {
      ctx.body = response;
      return;
    }
    const entries = new Map((await entriesWithDetailsByIds(pool, [...documents.keys()])).map((entry) => [entry.id_pessoa, entry]));
    const parts: Buffer[] = [];
    let at = 0;
    for (const ref of page.incomplete) {
      const entry = entries.get(ref.id_pessoa);
      const doc = documents.get(ref.id_pessoa);
      if (!entry || !doc) continue;
      parts.push(response.subarray(at, ref.start), rankingEntryJson(entry, doc, cvBaseUrl));
      at = ref.end;
    }
    parts.push(response.subarray(at));
    ctx.body = Buffer.concat(parts);
  };

  router.get('/ranking/paginado', async (ctx) => {
    const query = parseInput(pageQuery, ctx.query, 'query');
    const filter = { ativo: query.ativo, selos: parseSealFilter(query.selos) };
    // Stored pages go out compressed to clients that accept it; caches must keep the variants apart.
    ctx.vary('Accept-Encoding');
    // The common request, the unfiltered page of the default size: rendered by the job, one row.
    if (query.size === STORED_PAGE_SIZE && query.ativo === undefined && filter.selos.length === 0) {
      const stored = await readStoredPage(pool, query.page, cvBaseUrl);
      if (stored && stored.totals.total === 0) throw new HttpError(503, NOT_PROCESSED_DETAIL);
      if (stored?.page) {
        await sendStoredPage(ctx, stored.page);
        return;
      }
    }
    // The totals come with the page (one round trip for the common unfiltered page).
    const { totals, total, entries } = await pageOfEntries(pool, filter, { offset: (query.page - 1) * query.size, limit: query.size });
    if (totals.total === 0) throw new HttpError(503, NOT_PROCESSED_DETAIL);
    sendJsonWithRawList(ctx, rankingPageFields(total, query.page, query.size), 'consultores', await entriesJson(entries));
  });

  router.get('/ranking', async (ctx) => {
    const query = parseInput(listQuery, ctx.query, 'query');
    const totals = await requireRanking();
    const { total, entries } = await listEntries(
      pool,
      { block: query.componente, offset: query.offset, limit: query.limite },
      totals,
    );
    ctx.body = {
      total,
      limite: query.limite,
      offset: query.offset,
      consultores: entries.map((entry, i) => toRankingSummary(entry, query.componente ? query.offset + i + 1 : entry.posicao)),
    };
  });

  router.get('/ranking/detalhado', async (ctx) => {
    const query = parseInput(detailedQuery, ctx.query, 'query');
    const totals = await requireRanking();
    const { total, entries } = await listEntriesWithDetails(pool, { block: query.componente, offset: 0, limit: query.limite }, totals);
    const detailed = await entriesJson(entries, (i) => ({ rank: query.componente ? i + 1 : entries[i]?.posicao }));
    sendJsonWithRawList(ctx, { total, limite: query.limite }, 'consultores', detailed);
  });

  router.get('/ranking/selos', async (ctx) => {
    const known = sealCatalogue();
    const knownCodes = new Set(known.map((entry) => entry.codigo));
    const others = (await storedSealCodes(pool)).filter((code) => !knownCodes.has(code)).map(sealCatalogueEntry);
    ctx.body = { selos: [...known, ...others] };
  });

  router.get('/ranking/busca', async (ctx) => {
    const query = parseInput(searchQuery, ctx.query, 'query');
    ctx.body = await searchByName(pool, searchWords(query.nome), query.limit);
  });

  router.get('/ranking/estatisticas', async (ctx) => {
    const statistics = await readStatisticsSnapshot(pool);
    if (!statistics || statistics.total_consultores === 0) throw new HttpError(503, NOT_PROCESSED_DETAIL);
    ctx.body = statistics;
  });

  router.get('/ranking/posicao/:id_pessoa', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(positionPath, ctx.params, 'path');
    const totals = await requireRanking();
    const entry = await entryById(pool, idPessoa);
    ctx.body = entry
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
  });

  return router;
}
