import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { z } from 'zod';
import { attachmentDisposition } from '../../domain/pdf/file-names';
import type { ApiResources } from '../resources';
import { consultantSheetPdf, SheetGenerationError, SheetQueueFullError, teamSheetPdf, type SheetDeps } from '../../services/ranking';
import { HttpError } from '../errors';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { intParam } from './params';
import { rankingDepsOf } from '../use-case-deps';

/** Start of the detail of every 500 of the PDF routes; the cause follows it (docs/pdf.md). */
export const PDF_GENERATION_ERROR = 'Erro ao gerar PDF';
export { CONSULTANT_NOT_FOUND } from '../../services/ranking';
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

export const consultantPath = z.object({ id_pessoa: intParam(0, 2_147_483_647) });

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
  // The specification: an integer or null (0 too: a caller may count from it).
  posicao_ranking: z.number().int().nullable().default(null),
  pontuacao_ranking: z.number().default(0),
  motivos_match: texts,
});

/** Spec "Team request"; unknown fields (a suggestion record's `score_match`, ...) are ignored. */
export const teamRequest = z.object({
  tema: z.string().trim().min(1, 'não pode ser vazio').max(TEAM_TEXT_MAX),
  area_avaliacao: z.string().trim().max(TEAM_TEXT_MAX).nullable().default(null),
  consultores: z.array(teamMember).max(MAX_TEAM_MEMBERS),
});

/**
 * A sheet's failures as answers: a generation failure is 500 with the fixed text and the cause's
 * message (the cause itself goes to the log); a full waiting line is the service being busy, 503
 * with `Retry-After` (docs/pdf.md).
 */
function sheetFailures(ctx: ParameterizedContext) {
  return (error: unknown): never => {
    if (error instanceof SheetGenerationError) {
      const failure = new HttpError(500, `${PDF_GENERATION_ERROR}: ${error.message}`);
      failure.cause = error.cause;
      throw failure;
    }
    if (error instanceof SheetQueueFullError) {
      // The error envelope keeps headers set on ctx.
      ctx.set('Retry-After', String(PDF_RETRY_AFTER_SECONDS));
      throw new HttpError(503, `${PDF_QUEUE_FULL}: ${error.maxWaiting} já aguardam a vez; tente novamente em ${PDF_RETRY_AFTER_SECONDS} s`);
    }
    throw error;
  };
}

function sendPdf(ctx: ParameterizedContext, pdf: Buffer, fileName: string): void {
  ctx.status = 200;
  ctx.type = 'application/pdf';
  ctx.set('Content-Disposition', attachmentDisposition(fileName));
  // A sheet is a snapshot of today's data; an intermediary must not serve yesterday's.
  ctx.set('Cache-Control', 'no-store');
  ctx.body = pdf;
}

/** GET /consultor/{id_pessoa}/pdf and POST /equipe/pdf; the use cases are in services/ranking/sheets.ts. */
export function pdfRoutes(resources: ApiResources): Router {
  const deps: SheetDeps = { ...rankingDepsOf(resources), pdf: resources.pdf, timeZone: resources.config.ranking.scheduleTimezone };
  const router = new Router();
  router.use(useCaseErrors());

  router.get('/consultor/:id_pessoa/pdf', async (ctx) => {
    const { id_pessoa: idPessoa } = parseInput(consultantPath, ctx.params, 'path');
    // A MySQL failure is the ranking store's 503 (store-unavailable); an index failure fails the sheet.
    const { pdf, fileName } = await consultantSheetPdf(deps, idPessoa).catch(sheetFailures(ctx));
    sendPdf(ctx, pdf, fileName);
  });

  router.post('/equipe/pdf', async (ctx) => {
    const body = parseInput(teamRequest, ctx.request.body, 'body');
    if (body.consultores.length === 0) throw new HttpError(400, EMPTY_TEAM);
    const { pdf, fileName } = await teamSheetPdf(deps, body).catch(sheetFailures(ctx));
    sendPdf(ctx, pdf, fileName);
  });

  return router;
}
