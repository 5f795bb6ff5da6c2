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
  tipo: 'Profissional' | 'Residencial' | string;
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
