import { z } from 'zod';

/**
 * The person document of the external index (`pessoas`), as the ranking service reads it.
 * The specification does not show it; docs/index-document.md describes every field and the mapping.
 *
 * Conventions of the source system, kept on purpose because the service must cope with them:
 * - dates are strings `YYYY-MM-DD` (or null / absent); years inside degrees are strings, not always digits;
 * - lists may be absent instead of empty; optional scalars may be absent or null;
 * - texts may carry encoding damage (a Latin-1 code written as three digits between letters: `Jo227o`).
 */

/** `YYYY-MM-DD`, as stored. */
export type DateString = string;

export type ConsultancySituation = 'Ativo' | 'Inativo' | 'Falecido';

/** One knowledge area with the assessment area it belongs to. */
export interface KnowledgeArea {
  nome: string;
  area_avaliacao?: string | null;
}

/**
 * One period of consultancy for the agency (ad hoc consultant). A person may have several,
 * with gaps between them (a "return" when a later period starts after an earlier one ended).
 */
export interface ConsultancyPeriod {
  situacao: ConsultancySituation;
  inicio: DateString;
  fim?: DateString | null;
  ies_nome?: string | null;
  ies_sigla?: string | null;
  areas_conhecimento?: KnowledgeArea[];
  areas_avaliacao?: string[];
  linhas_pesquisa?: string[];
}

/** Agency-level coordination roles (block A). */
export type AgencyCoordinationType = 'CA' | 'CAJ' | 'CAJ_MP' | 'CAM';

export interface AgencyCoordination {
  tipo: AgencyCoordinationType;
  area_avaliacao?: string | null;
  inicio: DateString;
  fim?: DateString | null;
  /** e.g. `Presidente` of a thematic chamber (Câmara); drives the PRESID_CAMARA seal. */
  funcao?: string | null;
}

export type InscriptionType = 'INSC_AUTOR' | 'INSC_INST';

/** An inscription in an award call, as author or on behalf of an institution. */
export interface Inscription {
  tipo: InscriptionType;
  premio: string;
  ano: number;
}

export type CommitteeEvaluationType = 'AVAL_COMIS_PREMIO' | 'AVAL_COMIS_GP' | 'COORD_COMIS_PREMIO' | 'COORD_COMIS_GP';

/** Work in an award committee: evaluating or coordinating, for an award or a grand prize (GP). */
export interface CommitteeEvaluation {
  tipo: CommitteeEvaluationType;
  premio: string;
  ano: number;
}

export type AwardType = 'PREMIACAO' | 'PREMIACAO_GP' | 'MENCAO';
export type AwardRole = 'Autor' | 'Orientador' | 'Coorientador';

/** An award received (prize, grand prize or honourable mention), in one role. */
export interface Award {
  tipo: AwardType;
  papel: AwardRole;
  premio: string;
  evento?: string | null;
  premiacao?: string | null;
  ano: number;
  situacao?: string | null;
  produto_nome?: string | null;
  produto_tipo?: string | null;
  produto_autor?: string | null;
  ies_sigla?: string | null;
  programa?: string | null;
  area?: string | null;
}

/** A funding grant, e.g. a research productivity grant `PQ-1A` (drives the BPQ seal while current). */
export interface FundingGrant {
  modalidade: string;
  nivel?: string | null;
  inicio: DateString;
  fim?: DateString | null;
}

/** Participation in agency activities (assessment meetings, committees, events). */
export interface Participation {
  tipo: string;
  ano: number;
}

export type SupervisionLevel = 'Mestrado' | 'Doutorado' | 'Pós-Doutorado';
export type SupervisionRole = 'Orientador' | 'Coorientador';

/** A supervision; `tipo` is free text such as `Orientação Concluída` or `Orientação em Andamento`. */
export interface Supervision {
  tipo: string;
  nivel: SupervisionLevel;
  papel: SupervisionRole;
  concluida: boolean;
  ano?: number | null;
  titulo?: string | null;
  orientando?: string | null;
  programa?: string | null;
  ies?: string | null;
}

/** Membership of an examination board. */
export interface ExaminationBoard {
  nivel: SupervisionLevel | 'Graduação';
  ano: number;
}

export interface ResearchLine {
  nome: string;
  inicio?: DateString | null;
  fim?: DateString | null;
}

/** Teaching in a graduate programme (PPG); `coordenador` periods feed block E. */
export interface Teaching {
  programa: string;
  codigo_programa?: string | null;
  modalidade?: string | null;
  situacao_programa?: string | null;
  ies_nome?: string | null;
  ies_sigla?: string | null;
  area?: string | null;
  area_avaliacao?: string | null;
  categoria?: string | null;
  tipo_vinculo?: string | null;
  regime_trabalho?: string | null;
  carga_horaria?: number | null;
  linhas_pesquisa?: ResearchLine[];
  /** Periods in which the person coordinated this programme. */
  coordenacoes?: Array<{ inicio: DateString; fim?: DateString | null }>;
}

export interface Language {
  idioma: string;
  proficiencia_leitura?: string | null;
  proficiencia_escrita?: string | null;
  proficiencia_fala?: string | null;
  proficiencia_compreensao?: string | null;
}

/** A degree as stored: `hierarquia` and `ano` are strings and sometimes not digits (`"N/I"`, `"s/d"`). */
export interface Degree {
  grau?: string | null;
  hierarquia?: string | null;
  ano?: string | null;
  inicio?: DateString | null;
  fim?: DateString | null;
  ies_nome?: string | null;
  ies_sigla?: string | null;
  ies_status?: string | null;
  area?: string | null;
  area_avaliacao?: string | null;
  programa?: string | null;
  codigo_programa?: string | null;
  programa_modalidade?: string | null;
  programa_situacao?: string | null;
  pais?: string | null;
}

export interface Address {
  /** 'Profissional' or 'Residencial' in the documents seen; any text is kept. */
  tipo: string;
  principal?: boolean;
  logradouro?: string | null;
  numero?: string | null;
  complemento?: string | null;
  bairro?: string | null;
  cep?: string | null;
  cidade?: string | null;
  pais?: string | null;
}

export interface Employment {
  empregador: string;
  cnpj?: string | null;
  tipo_emprego?: string | null;
  atividade?: string | null;
  vinculo?: string | null;
  profissao?: string | null;
  periodos?: Array<{ inicio?: DateString | null; fim?: DateString | null }>;
}

export interface Project {
  nome?: string | null;
  situacao?: string | null;
  ano_inicio?: number | null;
  linha_pesquisa?: string | null;
  programa?: string | null;
  ies_sigla?: string | null;
  area?: string | null;
}

export interface PersonDocument {
  id_pessoa: number;
  nome: string;
  /** Active consultant flag of the source system. */
  ativo: boolean;
  /** Years of activity as a consultant, as computed by the source system. */
  anos_atuacao?: number | null;
  data_nascimento?: DateString | null;
  nacionalidade?: string | null;
  /** Curriculum identifier; absent for persons without a registered curriculum. */
  id_cv?: string | null;

  consultoria?: ConsultancyPeriod[];
  coordenacoes_agency?: AgencyCoordination[];
  inscricoes?: Inscription[];
  avaliacoes_comissao?: CommitteeEvaluation[];
  premiacoes?: Award[];
  bolsas_funder?: FundingGrant[];
  participacoes?: Participation[];
  orientacoes?: Supervision[];
  membros_banca?: ExaminationBoard[];
  docencias?: Teaching[];

  idiomas?: Language[];
  titulacoes?: Degree[];
  enderecos?: Address[];
  empregos?: Employment[];
  projetos?: Project[];
}

/*
 * The document as the ranking API returns it: whole (GET /consultor/{id_pessoa}/raw) or its detail
 * sections passed through (the ranking entries). The API never validates it (the index belongs to
 * another system): these schemas describe it for the OpenAPI document, as docs/index-document.md
 * fixes it. Every object is loose (`additionalProperties` allowed): the source may add fields, and
 * they come out as stored. The interfaces above stay the scoring's types; the checks at the end keep
 * the two alike, field by field.
 */

const date = z.string().meta({ description: '`YYYY-MM-DD` as stored (a malformed date is returned untouched)' });
const openDate = date.nullish();
const text = z.string().nullish();

export const knowledgeAreaSchema = z.looseObject({ nome: z.string(), area_avaliacao: text }).meta({ id: 'PersonKnowledgeArea' });

export const consultancyPeriodSchema = z
  .looseObject({
    situacao: z.enum(['Ativo', 'Inativo', 'Falecido']),
    inicio: date,
    fim: openDate,
    ies_nome: text,
    ies_sigla: text,
    areas_conhecimento: z.array(knowledgeAreaSchema).optional(),
    areas_avaliacao: z.array(z.string()).optional(),
    linhas_pesquisa: z.array(z.string()).optional(),
  })
  .meta({ id: 'PersonConsultancyPeriod' });

export const agencyCoordinationSchema = z
  .looseObject({
    tipo: z.enum(['CA', 'CAJ', 'CAJ_MP', 'CAM']),
    area_avaliacao: text,
    inicio: date,
    fim: openDate,
    funcao: text,
  })
  .meta({ id: 'PersonAgencyCoordination' });

export const inscriptionSchema = z
  .looseObject({ tipo: z.enum(['INSC_AUTOR', 'INSC_INST']), premio: z.string(), ano: z.number() })
  .meta({ id: 'PersonInscription' });

export const committeeEvaluationSchema = z
  .looseObject({
    tipo: z.enum(['AVAL_COMIS_PREMIO', 'AVAL_COMIS_GP', 'COORD_COMIS_PREMIO', 'COORD_COMIS_GP']),
    premio: z.string(),
    ano: z.number(),
  })
  .meta({ id: 'PersonCommitteeEvaluation' });

export const awardSchema = z
  .looseObject({
    tipo: z.enum(['PREMIACAO', 'PREMIACAO_GP', 'MENCAO']),
    papel: z.enum(['Autor', 'Orientador', 'Coorientador']),
    premio: z.string(),
    evento: text,
    premiacao: text,
    ano: z.number(),
    situacao: text,
    produto_nome: text,
    produto_tipo: text,
    produto_autor: text,
    ies_sigla: text,
    programa: text,
    area: text,
  })
  .meta({ id: 'PersonAward' });

export const fundingGrantSchema = z
  .looseObject({ modalidade: z.string(), nivel: text, inicio: date, fim: openDate })
  .meta({ id: 'PersonFundingGrant' });

export const participationSchema = z.looseObject({ tipo: z.string(), ano: z.number() }).meta({ id: 'PersonParticipation' });

const supervisionLevels = ['Mestrado', 'Doutorado', 'Pós-Doutorado'] as const;

export const supervisionSchema = z
  .looseObject({
    tipo: z.string(),
    nivel: z.enum(supervisionLevels),
    papel: z.enum(['Orientador', 'Coorientador']),
    concluida: z.boolean(),
    ano: z.number().nullish(),
    titulo: text,
    orientando: text,
    programa: text,
    ies: text,
  })
  .meta({ id: 'PersonSupervision' });

export const examinationBoardSchema = z
  .looseObject({ nivel: z.enum([...supervisionLevels, 'Graduação']), ano: z.number() })
  .meta({ id: 'PersonExaminationBoard' });

export const researchLineSchema = z.looseObject({ nome: z.string(), inicio: openDate, fim: openDate }).meta({ id: 'PersonResearchLine' });

export const teachingSchema = z
  .looseObject({
    programa: z.string(),
    codigo_programa: text,
    modalidade: text,
    situacao_programa: text,
    ies_nome: text,
    ies_sigla: text,
    area: text,
    area_avaliacao: text,
    categoria: text,
    tipo_vinculo: text,
    regime_trabalho: text,
    carga_horaria: z.number().nullish(),
    linhas_pesquisa: z.array(researchLineSchema).optional(),
    coordenacoes: z.array(z.looseObject({ inicio: date, fim: openDate })).optional(),
  })
  .meta({ id: 'PersonTeaching' });

export const languageSchema = z
  .looseObject({
    idioma: z.string(),
    proficiencia_leitura: text,
    proficiencia_escrita: text,
    proficiencia_fala: text,
    proficiencia_compreensao: text,
  })
  .meta({ id: 'PersonLanguage' });

export const degreeSchema = z
  .looseObject({
    grau: text,
    hierarquia: text.meta({ description: 'A string: `"1"` Pós-Doutorado … `"4"` Graduação; sometimes `""` or `"N/I"`' }),
    ano: text.meta({ description: 'A string, usually 4 digits; sometimes `"s/d"` or `""`' }),
    inicio: openDate,
    fim: openDate,
    ies_nome: text,
    ies_sigla: text,
    ies_status: text,
    area: text,
    area_avaliacao: text,
    programa: text,
    codigo_programa: text,
    programa_modalidade: text,
    programa_situacao: text,
    pais: text,
  })
  .meta({ id: 'PersonDegree' });

export const addressSchema = z
  .looseObject({
    tipo: z.string(),
    principal: z.boolean().optional(),
    logradouro: text,
    numero: text,
    complemento: text,
    bairro: text,
    cep: text,
    cidade: text,
    pais: text,
  })
  .meta({ id: 'PersonAddress' });

export const employmentSchema = z
  .looseObject({
    empregador: z.string(),
    cnpj: text,
    tipo_emprego: text,
    atividade: text,
    vinculo: text,
    profissao: text,
    periodos: z.array(z.looseObject({ inicio: openDate, fim: openDate })).optional(),
  })
  .meta({ id: 'PersonEmployment' });

export const projectSchema = z
  .looseObject({
    nome: text,
    situacao: text,
    ano_inicio: z.number().nullish(),
    linha_pesquisa: text,
    programa: text,
    ies_sigla: text,
    area: text,
  })
  .meta({ id: 'PersonProject' });

export const personDocumentSchema = z
  .looseObject({
    id_pessoa: z.number().int(),
    nome: z.string(),
    ativo: z.boolean(),
    anos_atuacao: z.number().nullish(),
    data_nascimento: openDate,
    nacionalidade: text,
    id_cv: text,
    consultoria: z.array(consultancyPeriodSchema).optional(),
    coordenacoes_agency: z.array(agencyCoordinationSchema).optional(),
    inscricoes: z.array(inscriptionSchema).optional(),
    avaliacoes_comissao: z.array(committeeEvaluationSchema).optional(),
    premiacoes: z.array(awardSchema).optional(),
    bolsas_funder: z.array(fundingGrantSchema).optional(),
    participacoes: z.array(participationSchema).optional(),
    orientacoes: z.array(supervisionSchema).optional(),
    membros_banca: z.array(examinationBoardSchema).optional(),
    docencias: z.array(teachingSchema).optional(),
    idiomas: z.array(languageSchema).optional(),
    titulacoes: z.array(degreeSchema).optional(),
    enderecos: z.array(addressSchema).optional(),
    empregos: z.array(employmentSchema).optional(),
    projetos: z.array(projectSchema).optional(),
  })
  .meta({
    id: 'PersonDocument',
    description:
      "The person's document of the external index, as stored (docs/index-document.md): not validated, so a section may hold values of other shapes, and fields not listed here come out too",
  });

/** A type without its index signatures (those of the loose objects), at every depth. */
type Known<T> =
  T extends ReadonlyArray<infer E> ? Known<E>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> } : T;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compile-time: the schema describes exactly the fields and types of the interface. */
const schemaMatchesInterface: Same<Known<z.output<typeof personDocumentSchema>>, Known<PersonDocument>> = true;
void schemaMatchesInterface;
