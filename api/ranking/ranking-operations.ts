import { z } from 'zod';
import {
  NOT_PROCESSED_DETAIL,
  nameMatchSchema,
  rankingDetailedSchema,
  rankingListSchema,
  rankingPageSchema,
  rankingPositionSchema,
  rankingStatisticsSchema,
  sealListSchema,
} from '../../services/ranking/reads';
import { sealCatalogue } from '../../domain/seals';
import { detailAnswer, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { detailedQuery, listQuery, pageQuery, positionPath, searchQuery } from './ranking-routes';

/** The ranking reads (api/ranking/ranking-routes.ts) as the OpenAPI document describes them. */
const tags = ['Ranking'];

/** A ranking entry as the tests' seeded index gives it (seed 5, person 382), at position 2789 of 3000. */
const degree = {
  grau: 'Graduação',
  hierarquia: 4,
  ano: 1984,
  inicio: null,
  fim: null,
  ies_nome: 'Universidade Federal de Uberlândia',
  ies_sigla: 'UFU',
  ies_status: 'Ativa',
  area: 'Direito',
  area_avaliacao: null,
  programa: null,
  codigo_programa: null,
  programa_modalidade: null,
  programa_situacao: null,
  pais: 'Brasil',
};
export const rankingEntryExample = {
  id_pessoa: 382,
  nome: 'Mônica Beatriz Ferreira',
  posicao: 2789,
  pontuacao_total: 11,
  bloco_a: 0,
  bloco_b: 0,
  bloco_c: 3,
  bloco_d: 8,
  bloco_e: 0,
  ativo: false,
  anos_atuacao: 0,
  coordenador_ppg: false,
  tipos_atuacao: ['Inscrito em Prêmio', 'Orientador', 'Membro de Banca', 'Participante de Atividades'],
  selos: ['ORIENT_DISS'],
  consultoria: [],
  coordenacoes_agency: null,
  inscricoes: [{ tipo: 'INSC_INST', premio: 'Prêmio de Tese – Direito', ano: 1987 }],
  avaliacoes_comissao: [],
  premiacoes: null,
  bolsas_funder: [],
  participacoes: [{ tipo: 'Comitê Técnico-Científico', ano: 1987 }],
  orientacoes: [
    {
      tipo: 'Orientação Concluída',
      nivel: 'Mestrado',
      papel: 'Orientador',
      concluida: true,
      ano: 1986,
      orientando: 'Heloísa Luís Moura',
      titulo: 'Efeitos de direitos fundamentais no Brasil',
    },
  ],
  membros_banca: [
    { nivel: 'Graduação', ano: 2026 },
    { nivel: 'Graduação', ano: 1989 },
  ],
  docencias: [],
  pontuacao: {
    bloco_a: { pontos: 0, itens: [] },
    bloco_b: { pontos: 0, itens: [] },
    bloco_c: { pontos: 3, itens: [{ codigo: 'INSC_INST', descricao: '1 inscrição(ões) por instituição × 3', pontos: 3 }] },
    bloco_d: {
      pontos: 8,
      itens: [
        { codigo: 'PARTICIPACOES', descricao: '1 participação(ões) × 2', pontos: 2 },
        { codigo: 'ORIENT_MEST_CONCL', descricao: '1 orientação(ões) de mestrado concluída(s) × 4', pontos: 4 },
        { codigo: 'BANCA_GRAD', descricao: '2 banca(s) de graduação × 1', pontos: 2 },
      ],
    },
    bloco_e: { pontos: 0, itens: [] },
    total: 11,
    data_referencia: '2026-11-27',
    versao: '5-blocos-v1',
  },
  idiomas: [{ idioma: 'Inglês', nivel_leitura: 'Bem', nivel_escrita: 'Bem', nivel_fala: 'Razoavelmente', nivel_compreensao: 'Pouco' }],
  titulacao: [degree],
  cv: { id_cv: '5713946905477468', titulacoes: [degree], url: 'https://cv.example.org/curriculo/5713946905477468' },
};

/** While the ranking has no entry, or when its store cannot be reached. */
const notProcessed = detailAnswer(
  `O ranking ainda não foi processado (\`${NOT_PROCESSED_DETAIL}\`), ou o armazenamento do ranking está indisponível (\`Armazenamento do ranking indisponível (<código>)\`)`,
);

export const rankingReadOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/ranking/paginado',
    operationId: 'getRankingPage',
    summary: 'Uma página do ranking, em ordem de posição, com as entradas completas',
    description:
      'Pages of the default size without filters are rendered by the job once per run and go out gzip-compressed when `Accept-Encoding` allows it; ' +
      'the answer is the same JSON either way (docs/ranking-api.md). A page past the end has an empty list.',
    tags,
    query: pageQuery,
    responses: {
      200: {
        ...jsonAnswer('A página', rankingPageSchema, {
          total: 3000,
          page: 56,
          size: 50,
          total_pages: 60,
          consultores: [rankingEntryExample],
        }),
        headers: {
          'Content-Encoding': {
            description: '`gzip` when a stored page goes out compressed (the client accepts gzip); absent otherwise',
            schema: z.literal('gzip'),
          },
          Vary: { description: '`Accept-Encoding`', schema: z.string() },
        },
      },
      503: notProcessed,
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking',
    operationId: 'listRanking',
    summary: 'O ranking resumido: por posição, ou por um bloco',
    tags,
    query: listQuery,
    responses: {
      200: jsonAnswer('Os resumos', rankingListSchema, {
        total: 3000,
        limite: 1,
        offset: 2788,
        consultores: [
          {
            id_pessoa: 382,
            nome: 'Mônica Beatriz Ferreira',
            anos_atuacao: 0,
            ativo: false,
            veterano: false,
            pontuacao_total: 11,
            bloco_a: 0,
            bloco_c: 3,
            bloco_d: 8,
            rank: 2789,
          },
        ],
      }),
      503: notProcessed,
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/detalhado',
    operationId: 'listRankingDetailed',
    summary: 'As primeiras entradas completas do ranking (as de /ranking/paginado mais `rank`)',
    tags,
    query: detailedQuery,
    responses: {
      // `?componente=c`: the last of the 735 persons scoring in block C (the list cut to that one).
      200: jsonAnswer('As entradas', rankingDetailedSchema, {
        total: 735,
        limite: 1000,
        consultores: [{ ...rankingEntryExample, rank: 735 }],
      }),
      503: notProcessed,
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/selos',
    operationId: 'listSeals',
    summary: 'O catálogo de selos, e os códigos do ranking que ele não conhece',
    description: 'Answered even before the first run, so the panel can draw its filter.',
    tags,
    responses: {
      200: jsonAnswer('Os selos', sealListSchema, {
        selos: [...sealCatalogue().slice(0, 2), { codigo: 'SELO_NOVO', label: 'SELO_NOVO', icone: '🏷️', grupo: 'outros' }],
      }),
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/busca',
    operationId: 'searchRanking',
    summary: 'Busca no ranking por nome (prefixos de palavras, sem acentos nem caixa)',
    description:
      'Best-ranked first, at most `limit`; the first 10 distinct words are used, short ones included (`Li Wu`). `[]` while the ranking is empty.',
    tags,
    query: searchQuery,
    responses: {
      200: jsonAnswer('As pessoas encontradas', z.array(nameMatchSchema), [
        { id_pessoa: 382, nome: 'Mônica Beatriz Ferreira', posicao: 2789, pontuacao_total: 11 },
      ]),
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/estatisticas',
    operationId: 'getRankingStatistics',
    summary: 'As estatísticas do ranking, calculadas ao fim da última execução concluída',
    tags,
    responses: {
      200: jsonAnswer('As estatísticas', rankingStatisticsSchema, {
        total_consultores: 3000,
        total_ativos: 1959,
        total_inativos: 1041,
        ultima_atualizacao: '2026-11-27T03:04:12.345Z',
        pontuacao_media: 195.94,
        pontuacao_maxima: 984.75,
        pontuacao_minima: 0,
        media_blocos: { bloco_a: 13.22, bloco_b: 130.78, bloco_c: 10.35, bloco_d: 34.33, bloco_e: 7.27 },
        distribuicao: [
          { faixa: '800+', quantidade: 29, percentual: 0.97 },
          { faixa: '600-799', quantidade: 81, percentual: 2.7 },
          { faixa: '400-599', quantidade: 97, percentual: 3.23 },
          { faixa: '200-399', quantidade: 629, percentual: 20.97 },
          { faixa: '0-199', quantidade: 2164, percentual: 72.13 },
        ],
      }),
      503: notProcessed,
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/posicao/{id_pessoa}',
    operationId: 'getRankingPosition',
    summary: 'A posição de uma pessoa no ranking',
    description:
      'A person not in the ranking answers 200 with `encontrado: false`, `posicao: null`, `nome: ""`, every score 0 and `ativo: false`.',
    tags,
    pathParams: positionPath,
    responses: {
      200: jsonAnswer('A posição', rankingPositionSchema, {
        id_pessoa: 382,
        nome: 'Mônica Beatriz Ferreira',
        posicao: 2789,
        total_consultores: 3000,
        pontuacao_total: 11,
        bloco_a: 0,
        bloco_b: 0,
        bloco_c: 3,
        bloco_d: 8,
        bloco_e: 0,
        ativo: false,
        encontrado: true,
      }),
      503: notProcessed,
    },
  },
];
