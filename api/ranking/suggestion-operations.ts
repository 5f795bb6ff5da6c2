import { suggestionAnswerSchema } from '../../services/ranking/suggestions';
import { detailAnswer, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { SUGGESTION_ERROR_PREFIX, suggestionQuery } from './suggestion-routes';

/** The suggestion by theme (api/ranking/suggestion-routes.ts) as the OpenAPI document describes it. */
const tags = ['Sugestão'];

export const suggestionOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/consultores/sugerir',
    operationId: 'suggestConsultants',
    summary: 'Sugere consultores para um tema',
    description:
      'Candidates are searched in the person index (quantidade × 3), scored with their ranking position, coordination and awards, ' +
      'sorted and selected with institution diversity (docs/suggestion.md).',
    tags,
    query: suggestionQuery,
    responses: {
      200: jsonAnswer('As sugestões', suggestionAnswerSchema, {
        tema_buscado: 'saúde coletiva',
        total_encontrados: 2,
        consultores: [
          {
            id_pessoa: 25,
            nome: 'Rosângela Galvão Carvalho Romão',
            score_match: 97.54,
            areas_avaliacao: ['Saúde Coletiva'],
            areas_conhecimento: ['Saúde Coletiva', 'Medicina Preventiva'],
            linhas_pesquisa: ['Análise de doenças crônicas não transmissíveis'],
            situacao: 'Ativo',
            ies: 'UFPR',
            foi_coordenador: false,
            foi_premiado: false,
            posicao_ranking: 1496,
            pontuacao_ranking: 169,
            motivos_match: ['Area: Saúde Coletiva', 'Area Avaliacao: Saúde Coletiva'],
          },
          {
            id_pessoa: 166,
            nome: 'Bárbara Ferreira',
            score_match: 95.65,
            areas_avaliacao: ['Saúde Coletiva'],
            areas_conhecimento: ['Saúde Pública', 'Saúde Coletiva'],
            linhas_pesquisa: [
              'Análise de atenção primária à saúde',
              'Métodos de doenças crônicas não transmissíveis na Amazônia',
              'Tecnologias para doenças crônicas não transmissíveis',
            ],
            situacao: 'Ativo',
            ies: 'UFRGS',
            foi_coordenador: false,
            foi_premiado: false,
            posicao_ranking: 1385,
            pontuacao_ranking: 172,
            motivos_match: [
              'Area: Saúde Pública',
              'Area: Saúde Coletiva',
              'Area Avaliacao: Saúde Coletiva',
              'Pesquisa: Análise de atenção primária à saúde...',
            ],
          },
        ],
      }),
      500: detailAnswer(`Qualquer falha depois da validação (índice, armazenamento do ranking): \`${SUGGESTION_ERROR_PREFIX}<causa>\``),
    },
  },
];
