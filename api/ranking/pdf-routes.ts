import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { QueueFullError } from '../../activities/pdf/semaphore';
import { PersonIndexReadError, readConsultantSources } from '../../activities/pdf/sheet-sources';
import { consultantSheet } from '../../domain/pdf/consultant-sheet';
import { consultantSheetDocument } from '../../domain/pdf/consultant-template';
import { attachmentDisposition, consultantSheetFileName, teamSheetFileName } from '../../domain/pdf/file-names';
import { sheetDate } from '../../domain/pdf/sheet-date';
import { teamStatistics, uniqueMembers } from '../../domain/pdf/team-statistics';
import { teamSheetDocument } from '../../domain/pdf/team-template';
import { PERSON_INDEX_BASE } from '../../domain/person-index';
import { indexName } from '../../lib/elasticsearch';
import type { Services } from '../../lib/services';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { intParam } from './params';

/** Start of the detail of every 500 of the PDF routes; the cause follows it (docs/pdf.md). */
export const PDF_GENERATION_ERROR = 'Erro ao gerar PDF';
export const CONSULTANT_NOT_FOUND = 'Consultor não encontrado';
export const EMPTY_TEAM = 'A equipe não tem consultores: envie ao menos um em "consultores".';
/** Start of the detail of the 503 when PDF_QUEUE_LIMIT sheets already wait. */
export const PDF_QUEUE_FULL = 'Fila de geração de PDF cheia';

/** Members of one team sheet at most: a bigger team is a bad request, not a long render. */
export const MAX_TEAM_MEMBERS = 200;
/**
 * Longest text of a team request (theme, area, a member's name, institution, an item of a list) and
 * most items of a member's list: far above real values (a research line's name, a suggestion's 5
 * reasons), low enough that no field can fill a page or hold the renderer (docs/pdf.md).
 */
export const TEAM_TEXT_MAX = 500;
export const TEAM_LIST_MAX = 50;
/** Seconds a client is told to wait when the sheets' waiting line is full. */
export const PDF_RETRY_AFTER_SECONDS = 5;

const consultantPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });

const text = z.string().max(TEAM_TEXT_MAX);
const texts = z.array(text).max(TEAM_LIST_MAX).default([]);

const teamMember = z.object({
  id_pessoa: z.number().int().min(0).max(2_147_483_647),
  nome: text,
  ies: text.nullable().default(null),
  areas_avaliacao: texts,
  areas_conhecimento: texts,
  linhas_pesquisa: texts,
  situacao: text.default(''),
  foi_coordenador: z.boolean().default(false),
  foi_premiado: z.boolean().default(false),
  posicao_ranking: z.number().int().positive().nullable().default(null),
  pontuacao_ranking: z.number().default(0),
  motivos_match: texts,
});

/** Spec "Team request"; unknown fields (a suggestion record's `score_match`, ...) are ignored. */
const teamRequest = z.object({
  tema: z.string().trim().min(1, 'must not be empty').max(TEAM_TEXT_MAX),
  area_avaliacao: z.string().trim().max(TEAM_TEXT_MAX).nullable().default(null),
  consultores: z.array(teamMember).max(MAX_TEAM_MEMBERS),
});

/** A failure while making a sheet: 500 with the fixed text and the cause's message (the cause itself goes to the log). */
function generationError(error: unknown): HttpError {
  const failure = new HttpError(500, `${PDF_GENERATION_ERROR}: ${error instanceof Error ? error.message : String(error)}`);
  failure.cause = error;
  return failure;
}

/**
 * Builds and prints a sheet; whatever fails in there is a generation failure, except a full waiting
 * line: that is the service being busy, 503 with `Retry-After` (docs/pdf.md).
 */
async function generating<T>(ctx: ParameterizedContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof QueueFullError)) throw generationError(error);
    // The error envelope keeps headers set on ctx.
    ctx.set('Retry-After', String(PDF_RETRY_AFTER_SECONDS));
    throw new HttpError(503, `${PDF_QUEUE_FULL}: ${error.maxWaiting} já aguardam a vez; tente novamente em ${PDF_RETRY_AFTER_SECONDS} s`);
  }
}

function sendPdf(ctx: ParameterizedContext, pdf: Buffer, fileName: string): void {
  ctx.status = 200;
  ctx.type = 'application/pdf';
  ctx.set('Content-Disposition', attachmentDisposition(fileName));
  // A sheet is a snapshot of today's data; an intermediary must not serve yesterday's.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = pdf;
}

/** GET /consultor/{id_pessoa}/pdf and POST /equipe/pdf. */
export function pdfRoutes(services: Services): Router {
  const { pool } = services.database;
  const personIndex = indexName(services.config.elasticsearch, PERSON_INDEX_BASE);
  const { cvBaseUrl, scheduleTimezone: timeZone } = services.config.ranking;
  const router = new Router();

  router.get('/consultor/:id_pessoa/pdf', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(consultantPath, ctx.params, 'path');
    // A MySQL failure is the ranking store's 503 (store-unavailable); an index failure fails the sheet.
    const { entry, totalConsultores, doc } = await readConsultantSources(pool, services.elasticsearch, personIndex, idPessoa).catch(
      (error: unknown) => {
        throw error instanceof PersonIndexReadError ? generationError(error) : error;
      },
    );
    if (!entry && !doc) throw new HttpError(404, CONSULTANT_NOT_FOUND);
    const date = sheetDate(new Date(), timeZone);
    const sheet = consultantSheet({ idPessoa, entry, doc, totalConsultores, cvBaseUrl });
    const pdf = await generating(ctx, () => services.pdf.render(consultantSheetDocument(sheet, date.printed)));
    sendPdf(ctx, pdf, consultantSheetFileName(idPessoa, sheet.nome, date.day));
  });

  router.post('/equipe/pdf', async (ctx) => {
    const body = parseInput(teamRequest, ctx.request.body, 'body');
    if (body.consultores.length === 0) throw new HttpError(400, EMPTY_TEAM);
    const request = { ...body, area_avaliacao: body.area_avaliacao || null, consultores: uniqueMembers(body.consultores) };
    const date = sheetDate(new Date(), timeZone);
    const statistics = teamStatistics(request.consultores);
    const pdf = await generating(ctx, () => services.pdf.render(teamSheetDocument({ request, statistics, generatedAt: date.printed })));
    sendPdf(ctx, pdf, teamSheetFileName(request.tema, date.day));
  });

  return router;
}
