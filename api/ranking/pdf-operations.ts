import { z } from 'zod';
import { detailAnswer, type OperationSpec, type ResponseSpec } from '../openapi/operation';
import { budgetHeaders, rateLimitedAnswer } from './job-operations';
import {
  CONSULTANT_NOT_FOUND,
  consultantPath,
  EMPTY_TEAM,
  PDF_GENERATION_ERROR,
  PDF_QUEUE_FULL,
  PDF_RETRY_AFTER_SECONDS,
  teamRequest,
} from './pdf-routes';

/** The PDF sheets (api/ranking/pdf-routes.ts) as the OpenAPI document describes them (docs/pdf.md). */
const tags = ['PDF'];

function pdfAnswer(fileName: string, example: string): ResponseSpec {
  return {
    description: 'A ficha em PDF',
    contentType: 'application/pdf',
    headers: {
      'Content-Disposition': {
        description:
          `\`attachment; filename=${fileName}\` (name sanitised, cut to 30 characters; date in RANKING_SCHEDULE_TIMEZONE). ` +
          `A non-ASCII name adds \`filename*=UTF-8''<percent-encoded>\` beside an ASCII \`filename\`. E.g. \`${example}\``,
        schema: z.string(),
      },
      'Cache-Control': { description: "`no-store`: a sheet is a snapshot of today's data", schema: z.literal('no-store') },
      ...budgetHeaders,
    },
  };
}

const generationFailed = detailAnswer(
  `A geração falhou (navegador, tempo esgotado, índice ilegível): \`${PDF_GENERATION_ERROR}: <causa>\``,
);
const queueFull: ResponseSpec = {
  ...detailAnswer(
    `PDF_QUEUE_LIMIT fichas já aguardam a vez (\`${PDF_QUEUE_FULL}: <n> já aguardam a vez; tente novamente em ${PDF_RETRY_AFTER_SECONDS} s\`), ` +
      'ou o armazenamento do ranking está indisponível',
  ),
  headers: { 'Retry-After': { description: `\`${PDF_RETRY_AFTER_SECONDS}\` when the waiting line is full`, schema: z.string() } },
};
const rateLimited = rateLimitedAnswer(
  'PDF_RATE_LIMIT_REQUESTS a cada PDF_RATE_LIMIT_WINDOW_SECONDS, 60 a cada 60 s por padrão, um orçamento para as duas fichas',
);

export const pdfOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/consultor/{id_pessoa}/pdf',
    operationId: 'getConsultantPdf',
    summary: 'A ficha de um consultor em PDF',
    tags,
    pathParams: consultantPath,
    responses: {
      200: pdfAnswer(
        'ficha_consultor_<id_pessoa>_<nome>_<YYYYMMDD>.pdf',
        `attachment; filename="ficha_consultor_382_Monica Beatriz Ferreira_20261127.pdf"; filename*=UTF-8''ficha_consultor_382_M%C3%B4nica%20Beatriz%20Ferreira_20261127.pdf`,
      ),
      404: detailAnswer(`Nem o ranking nem o índice de pessoas têm a pessoa: \`${CONSULTANT_NOT_FOUND}\``),
      429: rateLimited,
      500: generationFailed,
      503: queueFull,
    },
  },
  {
    method: 'post',
    path: '/api/v1/equipe/pdf',
    operationId: 'createTeamPdf',
    summary: 'A ficha de uma equipe em PDF',
    description:
      "Members listed twice (same `id_pessoa`) count once. Unknown fields of a member (a suggestion record's `score_match`, ...) are ignored.",
    tags,
    body: {
      schema: teamRequest,
      example: {
        tema: 'Inteligência Artificial/Saúde & Ética',
        area_avaliacao: 'Ciência da Computação',
        consultores: [
          {
            id_pessoa: 1,
            nome: 'Ana Lima',
            situacao: 'Ativo',
            ies: 'UnB',
            foi_coordenador: true,
            foi_premiado: true,
            posicao_ranking: 12,
            pontuacao_ranking: 845.5,
          },
          { id_pessoa: 3, nome: 'Célia Prado', situacao: 'ativo', ies: 'USP', motivos_match: ['Area: Computação'] },
        ],
      },
    },
    responses: {
      200: pdfAnswer(
        'equipe_<tema>_<YYYYMMDD>.pdf',
        `attachment; filename="equipe_Inteligencia Artificial_Saude _20261127.pdf"; filename*=UTF-8''equipe_Intelig%C3%AAncia%20Artificial_Sa%C3%BAde%20_20261127.pdf`,
      ),
      400: detailAnswer(`\`consultores\` vazio: \`${EMPTY_TEAM}\``),
      429: rateLimited,
      500: generationFailed,
      503: queueFull,
    },
  },
];
