import { z } from 'zod';
import { assessmentAreaRecordSchema, consultantDetailSchema } from '../../domain/consultant-detail';
import { curriculumAnswerSchema, NO_CURRICULUM } from '../../domain/curriculum';
import { personDocumentSchema } from '../../domain/person-document';
import { detailAnswer, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { AREA_LIST_ERROR_PREFIX, CONSULTANT_NOT_FOUND_DETAIL, idPath, INDEX_ERROR_PREFIX } from './consultant-routes';
import { rankingEntryExample } from './ranking-operations';

/** The consultant routes (api/ranking/consultant-routes.ts) as the OpenAPI document describes them. */
const tags = ['Consultores'];
const notFound = detailAnswer(`Nem o ranking nem o índice de pessoas têm a pessoa: \`${CONSULTANT_NOT_FOUND_DETAIL}\``);
const indexFailed = (when: string) => detailAnswer(`O índice de pessoas falhou${when}: \`${INDEX_ERROR_PREFIX}<causa>\``);

/** The tests' seeded person 382 (seed 5), as the index stores it. */
const documentExample = {
  id_pessoa: 382,
  nome: 'Mônica Beatriz Ferreira',
  ativo: false,
  anos_atuacao: 0,
  data_nascimento: '1963-09-04',
  nacionalidade: 'Brasileira',
  id_cv: '5713946905477468',
  consultoria: [],
  inscricoes: [{ tipo: 'INSC_INST', premio: 'Prêmio de Tese – Direito', ano: 1987 }],
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
  idiomas: [
    {
      idioma: 'Inglês',
      proficiencia_leitura: 'Bem',
      proficiencia_escrita: 'Bem',
      proficiencia_fala: 'Razoavelmente',
      proficiencia_compreensao: 'Pouco',
    },
  ],
  titulacoes: [
    {
      grau: 'Graduação',
      hierarquia: '4',
      ano: '1984',
      ies_nome: 'Universidade Federal de Uberlândia',
      ies_sigla: 'UFU',
      ies_status: 'Ativa',
      area: 'Direito',
      pais: 'Brasil',
    },
  ],
  enderecos: [
    {
      tipo: 'Profissional',
      logradouro: 'Avenida Bento Gonçalves',
      numero: '2360',
      bairro: 'Butantã',
      cep: '37777-671',
      cidade: 'Rio de Janeiro',
      pais: 'Brasil',
      principal: true,
    },
  ],
  empregos: [
    {
      empregador: 'Universidade Federal do Rio de Janeiro',
      cnpj: '82.031.164/0001-86',
      tipo_emprego: 'Professor Visitante',
      atividade: 'Pesquisador',
      vinculo: 'Temporário',
      profissao: 'Professor Associado',
      periodos: [{ inicio: '2009-02-14', fim: null }],
    },
  ],
  projetos: [
    {
      situacao: 'Em andamento',
      ano_inicio: 1988,
      linha_pesquisa: 'Métodos de acesso à justiça',
      ies_sigla: 'UFRJ',
      area: 'Direito',
      nome: 'Projeto: Efeitos de direitos fundamentais e inovação',
      programa: 'Programa de Pós-Graduação em Direito Privado',
    },
  ],
};

const curriculumExample = {
  encontrado: true,
  id_cv: '5713946905477468',
  url: 'https://cv.example.org/curriculo/5713946905477468',
  nome: 'Mônica Beatriz Ferreira',
  data_nascimento: '1963-09-04',
  nacionalidade: 'Brasileira',
  titulacoes: rankingEntryExample.titulacao,
  idiomas: [
    {
      idioma: 'Inglês',
      proficiencia_leitura: 'Bem',
      proficiencia_escrita: 'Bem',
      proficiencia_fala: 'Razoavelmente',
      proficiencia_compreensao: 'Pouco',
    },
  ],
  areas_conhecimento: [],
  endereco_profissional: {
    logradouro: 'Avenida Bento Gonçalves',
    numero: '2360',
    complemento: null,
    bairro: 'Butantã',
    cep: '37777-671',
    cidade: 'Rio de Janeiro',
    pais: 'Brasil',
  },
  orientacoes_concluidas: [
    {
      tipo: 'Orientação Concluída',
      titulo: 'Efeitos de direitos fundamentais no Brasil',
      ano: 1986,
      orientando: 'Heloísa Luís Moura',
      programa: null,
      ies: null,
    },
  ],
  total_orientacoes: 1,
  estatisticas_orientacoes: {
    mestrado_finalizado: 1,
    doutorado_finalizado: 0,
    mestrado_andamento: 0,
    doutorado_andamento: 0,
    pos_doutorado: 0,
  },
  docencias: [],
  empregos: documentExample.empregos,
  projetos: [
    {
      nome: 'Projeto: Efeitos de direitos fundamentais e inovação',
      situacao: 'Em andamento',
      ano_inicio: 1988,
      linha_pesquisa: 'Métodos de acesso à justiça',
      programa: 'Programa de Pós-Graduação em Direito Privado',
      ies_sigla: 'UFRJ',
      area: 'Direito',
    },
  ],
  total_projetos: 1,
  premiacoes_detalhadas: [],
  data_atualizacao_cv: null,
};

export const consultantOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/consultor/{id_pessoa}',
    operationId: 'getConsultant',
    summary: 'O registro detalhado de um consultor (um item de /ranking/detalhado)',
    description:
      'A ranked person: the stored entry, `rank` = `posicao`. A person in the index but not in the last completed ranking: ' +
      'scored on the fly, `posicao` and `rank` null (docs/consultant-api.md).',
    tags,
    pathParams: idPath,
    responses: {
      200: jsonAnswer('O registro', consultantDetailSchema, { ...rankingEntryExample, rank: rankingEntryExample.posicao }),
      404: notFound,
      500: indexFailed(' ao ler uma pessoa que não está no ranking'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/consultor/{id_pessoa}/raw',
    operationId: 'getConsultantDocument',
    summary: 'O documento da pessoa no índice, inteiro e como armazenado',
    tags,
    pathParams: idPath,
    responses: {
      200: jsonAnswer('O documento', personDocumentSchema, documentExample),
      404: detailAnswer(`O índice não tem a pessoa: \`${CONSULTANT_NOT_FOUND_DETAIL}\``),
      500: indexFailed(' (índice ausente, fechado ou inalcançável)'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/consultor/{id_pessoa}/cv',
    operationId: 'getConsultantCurriculum',
    summary: 'O currículo de uma pessoa',
    description: `Always 200 (the specification), for a person without a document or without a curriculum identifier and when the index cannot be read: \`encontrado: false\` and the reason (e.g. \`${NO_CURRICULUM}\`).`,
    tags,
    pathParams: idPath,
    responses: {
      200: jsonAnswer('O currículo, ou `encontrado: false` e o motivo', curriculumAnswerSchema, curriculumExample),
    },
  },
  {
    method: 'get',
    path: '/api/v1/consultores/areas-avaliacao',
    operationId: 'listAssessmentAreas',
    summary: 'As áreas de avaliação do índice, com quantos consultores (e quantos ativos) cada uma tem',
    description: 'Spellings of one area (case, accents, encoding damage) are merged; sorted by name (Portuguese collation).',
    tags,
    responses: {
      200: jsonAnswer('As áreas', z.array(assessmentAreaRecordSchema), [
        { nome: 'Direito', total_consultores: 115, total_ativos: 81 },
        { nome: 'Saúde Coletiva', total_consultores: 173, total_ativos: 132 },
      ]),
      500: detailAnswer(`A listagem falhou: \`${AREA_LIST_ERROR_PREFIX}<causa>\``),
    },
  },
];
