import { degreeItems, type DegreeItem } from './degrees';
import type { Degree, PersonDocument } from './person-document';
import { cvUrl } from './ranking-entry';
import { isRecord, listOf } from './scoring/dates';
import { foldForSearch, isRepairable, repairEncoding } from './text';

/**
 * The curriculum record of GET /consultor/{id_pessoa}/cv, shaped from the person's index document.
 * Pure: no I/O. docs/consultant-api.md states every decision the specification leaves open.
 *
 * Reading the document: it comes from an external system, so lists that are absent or not lists
 * count as empty, items that are not objects are skipped, and a field of an unexpected type is null.
 *
 * Displayed free texts (names, titles, institutions, areas, lines, places, …) are repaired with
 * `repairEncoding` (the specification's repair of `Jo227o` → `João`); identifiers, codes, dates and
 * numbers (`id_cv`, `url`, `data_nascimento`, `inicio`, `fim`, `cep`, `numero`, `cnpj`,
 * `codigo_programa`) are returned as stored.
 */

export const PERSON_NOT_FOUND = 'Pessoa não encontrada';
export const NO_CURRICULUM = 'Currículo não cadastrado';

/** The specification's cuts (Limits table). */
export const MAX_CONCLUDED_SUPERVISIONS = 20;
export const MAX_PROJECTS = 30;
export const MAX_ACTIVE_RESEARCH_LINES = 5;

/** What the record reads from the document: the `_source` includes of its one `get`. */
export const CURRICULUM_SOURCE_FIELDS = [
  'id_cv',
  'nome',
  'data_nascimento',
  'nacionalidade',
  'titulacoes',
  'idiomas',
  'consultoria.areas_conhecimento',
  'enderecos',
  'orientacoes',
  'docencias',
  'empregos',
  'projetos',
  'premiacoes',
];

export interface CurriculumLanguage {
  idioma: string | null;
  proficiencia_leitura: string | null;
  proficiencia_escrita: string | null;
  proficiencia_fala: string | null;
  proficiencia_compreensao: string | null;
}

export interface CurriculumKnowledgeArea {
  nome: string;
  area_avaliacao: string | null;
}

export interface ProfessionalAddress {
  logradouro: string | null;
  numero: string | null;
  complemento: string | null;
  bairro: string | null;
  cep: string | null;
  cidade: string | null;
  pais: string | null;
}

export interface ConcludedSupervision {
  tipo: string | null;
  titulo: string | null;
  ano: number | null;
  orientando: string | null;
  programa: string | null;
  ies: string | null;
}

export interface SupervisionStatistics {
  mestrado_finalizado: number;
  doutorado_finalizado: number;
  mestrado_andamento: number;
  doutorado_andamento: number;
  pos_doutorado: number;
}

export interface CurriculumTeaching {
  programa: string | null;
  codigo_programa: string | null;
  modalidade: string | null;
  situacao_programa: string | null;
  ies_nome: string | null;
  ies_sigla: string | null;
  area: string | null;
  area_avaliacao: string | null;
  categoria: string | null;
  tipo_vinculo: string | null;
  regime_trabalho: string | null;
  carga_horaria: number | null;
  linhas_pesquisa_ativas: string[];
  total_linhas_pesquisa: number;
}

export interface CurriculumEmployment {
  empregador: string | null;
  cnpj: string | null;
  tipo_emprego: string | null;
  atividade: string | null;
  vinculo: string | null;
  profissao: string | null;
  periodos: Array<{ inicio: string | null; fim: string | null }>;
}

export interface CurriculumProject {
  nome: string;
  situacao: string | null;
  ano_inicio: number | null;
  linha_pesquisa: string | null;
  programa: string | null;
  ies_sigla: string | null;
  area: string | null;
}

export interface CurriculumAward {
  premio: string | null;
  evento: string | null;
  premiacao: string | null;
  ano: number | null;
  papel: string | null;
  situacao: string | null;
  produto_nome: string | null;
  produto_tipo: string | null;
  produto_autor: string | null;
  ies_sigla: string | null;
  programa: string | null;
  area: string | null;
}

export interface Curriculum {
  encontrado: true;
  id_cv: string;
  url: string;
  nome: string;
  data_nascimento: string | null;
  nacionalidade: string | null;
  titulacoes: DegreeItem[];
  idiomas: CurriculumLanguage[];
  areas_conhecimento: CurriculumKnowledgeArea[];
  endereco_profissional: ProfessionalAddress | null;
  orientacoes_concluidas: ConcludedSupervision[];
  total_orientacoes: number;
  estatisticas_orientacoes: SupervisionStatistics | null;
  docencias: CurriculumTeaching[];
  empregos: CurriculumEmployment[];
  projetos: CurriculumProject[];
  total_projetos: number;
  premiacoes_detalhadas: CurriculumAward[];
  data_atualizacao_cv: null;
}

export interface CurriculumNotFound {
  encontrado: false;
  motivo: string;
}

type Item = Record<string, unknown>;

/** A displayed text: a string, repaired; anything else null. */
function shown(value: unknown): string | null {
  return typeof value === 'string' ? repairEncoding(value) : null;
}

/** An identifier, code or date, as stored (a number is written as text); anything else null. */
function asStored(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** A number, or a string of digits read as one; anything else null. */
function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value);
  return null;
}

/** The items of a list that are objects (absent or non-list: none). */
function itemsOf(value: unknown): Item[] {
  return listOf(value).filter(isRecord);
}

/** The curriculum identifier: a non-blank string (or a number, as text); null when there is none. */
export function curriculumId(doc: Partial<PersonDocument>): string | null {
  const id = asStored(doc.id_cv);
  return id !== null && id.trim() !== '' ? id : null;
}

/** Stable: items with a larger year first, items without a year last, source order otherwise. */
function mostRecentFirst<T>(items: T[], yearOf: (item: T) => number | null): T[] {
  return items
    .map((item, index) => ({ item, index, year: yearOf(item) }))
    .sort((a, b) => (b.year ?? -Infinity) - (a.year ?? -Infinity) || a.index - b.index)
    .map(({ item }) => item);
}

const DEGREE_TEXT_FIELDS = [
  'grau',
  'ies_nome',
  'ies_sigla',
  'ies_status',
  'area',
  'area_avaliacao',
  'programa',
  'programa_modalidade',
  'programa_situacao',
  'pais',
] as const;

/** The degree items of the ranking entry's cv (same function, same order), their texts repaired. */
export function curriculumDegrees(degrees: unknown): DegreeItem[] {
  return degreeItems(itemsOf(degrees) as Degree[]).map((item) => {
    const repaired = { ...item };
    for (const field of DEGREE_TEXT_FIELDS) {
      const value = item[field];
      if (typeof value === 'string') repaired[field] = repairEncoding(value);
    }
    return repaired;
  });
}

export function curriculumLanguages(languages: unknown): CurriculumLanguage[] {
  return itemsOf(languages).map((language) => ({
    idioma: shown(language.idioma),
    proficiencia_leitura: shown(language.proficiencia_leitura),
    proficiencia_escrita: shown(language.proficiencia_escrita),
    proficiencia_fala: shown(language.proficiencia_fala),
    proficiencia_compreensao: shown(language.proficiencia_compreensao),
  }));
}

/**
 * A grouping key for an area text: folded (lower case, no accents, spaces collapsed) after decoding
 * every run of three-digit Latin-1 letter codes that touches a letter — so `Educação`, `EDUCAÇÃO`
 * and the damaged `Educa231227o`, which `repairEncoding` cannot undo, share one key.
 */
export function areaKey(text: string): string {
  const decoded = text.replace(/(?<=\p{L})(?:\d{3})+(?!\d)|(?<!\d)(?:\d{3})+(?=\p{L})/gu, (run) => {
    const codes = run.match(/\d{3}/g) ?? [];
    return codes.every((code) => isRepairable(Number(code))) ? String.fromCharCode(...codes.map(Number)) : run;
  });
  return foldForSearch(decoded);
}

/**
 * The knowledge areas of every consultancy period, in order of first appearance, each distinct
 * (name, assessment area) pair once (compared by `areaKey`); items without a name are skipped.
 */
export function curriculumKnowledgeAreas(consultancy: unknown): CurriculumKnowledgeArea[] {
  const seen = new Set<string>();
  const areas: CurriculumKnowledgeArea[] = [];
  for (const period of itemsOf(consultancy)) {
    for (const area of itemsOf(period.areas_conhecimento)) {
      const nome = shown(area.nome);
      if (!nome || nome.trim() === '') continue;
      const areaAvaliacao = shown(area.area_avaliacao);
      const key = `${areaKey(nome)}\u0000${areaKey(areaAvaliacao ?? '')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      areas.push({ nome, area_avaliacao: areaAvaliacao });
    }
  }
  return areas;
}

/**
 * The first address, in stored order, whose type is Profissional (any case or accents) or that is
 * flagged as main (`principal: true`): a main residential address listed before the professional
 * one is the one taken, as the specification words it. Null when no address qualifies.
 */
export function professionalAddress(addresses: unknown): ProfessionalAddress | null {
  const address = itemsOf(addresses).find(
    (item) => (typeof item.tipo === 'string' && foldForSearch(item.tipo) === 'profissional') || item.principal === true,
  );
  if (!address) return null;
  return {
    logradouro: shown(address.logradouro),
    numero: asStored(address.numero),
    complemento: shown(address.complemento),
    bairro: shown(address.bairro),
    cep: asStored(address.cep),
    cidade: shown(address.cidade),
    pais: shown(address.pais),
  };
}

/**
 * The supervision words, as stems of the folded (repaired, lower-cased, accent-free) type: a type
 * "contains the words for supervision and concluded" when it contains `orienta` and `conclu`. Stems
 * stop before the accented letters, so `Orientação Concluída`, `ORIENTACAO CONCLUIDA`,
 * `orientações concluídas`, `Coorientação concluída` and the damaged `Orienta231227o Conclu237da`
 * all match; `Orientação em Andamento` does not.
 */
const SUPERVISION_STEM = 'orienta';
const CONCLUDED_STEM = 'conclu';
const IN_PROGRESS_WORD = 'andamento';

function foldedType(tipo: unknown): string {
  return typeof tipo === 'string' ? foldForSearch(repairEncoding(tipo)) : '';
}

export function isConcludedSupervision(tipo: unknown): boolean {
  const folded = foldedType(tipo);
  return folded.includes(SUPERVISION_STEM) && folded.includes(CONCLUDED_STEM);
}

/** A type with the supervision stem and `andamento` (and not concluded): a supervision in progress. */
export function isSupervisionInProgress(tipo: unknown): boolean {
  const folded = foldedType(tipo);
  return folded.includes(SUPERVISION_STEM) && folded.includes(IN_PROGRESS_WORD) && !folded.includes(CONCLUDED_STEM);
}

type SupervisionLevel = 'mestrado' | 'doutorado' | 'pos_doutorado' | null;

/** `Pós-Doutorado` (also `Pos-doc`, `Pós Doutorado`), `Doutorado`, `Mestrado` (also `Mestrado Profissional`); else null. */
export function supervisionLevel(nivel: unknown): SupervisionLevel {
  const folded = typeof nivel === 'string' ? foldForSearch(repairEncoding(nivel)) : '';
  if (/\bpos\W*do[uc]/.test(folded)) return 'pos_doutorado';
  if (folded.includes('doutor')) return 'doutorado';
  if (folded.includes('mestr')) return 'mestrado';
  return null;
}

/**
 * The concluded supervisions: every `orientacoes` item whose type matches `isConcludedSupervision`,
 * most recent first (`ano` descending, items without a year last, stored order on ties), cut to 20;
 * `total` counts them before the cut.
 */
export function concludedSupervisions(supervisions: unknown): { items: ConcludedSupervision[]; total: number } {
  const concluded = itemsOf(supervisions)
    .filter((item) => isConcludedSupervision(item.tipo))
    .map(
      (item): ConcludedSupervision => ({
        tipo: shown(item.tipo),
        titulo: shown(item.titulo),
        ano: numberOf(item.ano),
        orientando: shown(item.orientando),
        programa: shown(item.programa),
        ies: shown(item.ies),
      }),
    );
  return { items: mostRecentFirst(concluded, (item) => item.ano).slice(0, MAX_CONCLUDED_SUPERVISIONS), total: concluded.length };
}

/**
 * Counts over every `orientacoes` item (the whole list, not the cut one): master's and doctoral
 * supervisions concluded (`isConcludedSupervision`) or in progress (`isSupervisionInProgress`), and
 * post-doctoral supervisions in any state. A master's or doctoral item of neither state, or an item
 * of no known level, counts nowhere.
 * Null when every count is zero (no supervision to show), so a client hides the block.
 */
export function supervisionStatistics(supervisions: unknown): SupervisionStatistics | null {
  const counts: SupervisionStatistics = {
    mestrado_finalizado: 0,
    doutorado_finalizado: 0,
    mestrado_andamento: 0,
    doutorado_andamento: 0,
    pos_doutorado: 0,
  };
  for (const item of itemsOf(supervisions)) {
    const level = supervisionLevel(item.nivel);
    if (level === 'pos_doutorado') counts.pos_doutorado += 1;
    else if (level !== null) {
      if (isConcludedSupervision(item.tipo)) counts[`${level}_finalizado`] += 1;
      else if (isSupervisionInProgress(item.tipo)) counts[`${level}_andamento`] += 1;
    }
  }
  return Object.values(counts).some((count) => count > 0) ? counts : null;
}

/** Research lines with no end (`fim` absent, null or blank) and a name, in stored order. */
function activeResearchLines(lines: unknown): string[] {
  const active: string[] = [];
  for (const line of itemsOf(lines)) {
    const ended = typeof line.fim === 'string' ? line.fim.trim() !== '' : line.fim != null;
    const nome = shown(line.nome);
    if (!ended && nome && nome.trim() !== '') active.push(nome);
  }
  return active;
}

/**
 * Teaching in graduate programmes, in stored order. `linhas_pesquisa_ativas`: the names of the
 * research lines without an end, cut to 5; `total_linhas_pesquisa`: how many active lines there
 * are before that cut (as `total_orientacoes` and `total_projetos` count before theirs).
 */
export function curriculumTeachings(teachings: unknown): CurriculumTeaching[] {
  return itemsOf(teachings).map((teaching) => {
    const active = activeResearchLines(teaching.linhas_pesquisa);
    return {
      programa: shown(teaching.programa),
      codigo_programa: asStored(teaching.codigo_programa),
      modalidade: shown(teaching.modalidade),
      situacao_programa: shown(teaching.situacao_programa),
      ies_nome: shown(teaching.ies_nome),
      ies_sigla: shown(teaching.ies_sigla),
      area: shown(teaching.area),
      area_avaliacao: shown(teaching.area_avaliacao),
      categoria: shown(teaching.categoria),
      tipo_vinculo: shown(teaching.tipo_vinculo),
      regime_trabalho: shown(teaching.regime_trabalho),
      carga_horaria: numberOf(teaching.carga_horaria),
      linhas_pesquisa_ativas: active.slice(0, MAX_ACTIVE_RESEARCH_LINES),
      total_linhas_pesquisa: active.length,
    };
  });
}

/** Employments in stored order; `periodos` in stored order, `[]` when absent. */
export function curriculumEmployments(employments: unknown): CurriculumEmployment[] {
  return itemsOf(employments).map((employment) => ({
    empregador: shown(employment.empregador),
    cnpj: asStored(employment.cnpj),
    tipo_emprego: shown(employment.tipo_emprego),
    atividade: shown(employment.atividade),
    vinculo: shown(employment.vinculo),
    profissao: shown(employment.profissao),
    periodos: itemsOf(employment.periodos).map((period) => ({ inicio: asStored(period.inicio), fim: asStored(period.fim) })),
  }));
}

/**
 * Projects with a name (a non-blank string), most recent first (`ano_inicio` descending, those
 * without a year last, stored order on ties), cut to 30; `total` counts the named ones before the cut.
 */
export function curriculumProjects(projects: unknown): { items: CurriculumProject[]; total: number } {
  const named: CurriculumProject[] = [];
  for (const project of itemsOf(projects)) {
    const nome = shown(project.nome);
    if (!nome || nome.trim() === '') continue;
    named.push({
      nome,
      situacao: shown(project.situacao),
      ano_inicio: numberOf(project.ano_inicio),
      linha_pesquisa: shown(project.linha_pesquisa),
      programa: shown(project.programa),
      ies_sigla: shown(project.ies_sigla),
      area: shown(project.area),
    });
  }
  return { items: mostRecentFirst(named, (project) => project.ano_inicio).slice(0, MAX_PROJECTS), total: named.length };
}

/** Awards in stored order. */
export function curriculumAwards(awards: unknown): CurriculumAward[] {
  return itemsOf(awards).map((award) => ({
    premio: shown(award.premio),
    evento: shown(award.evento),
    premiacao: shown(award.premiacao),
    ano: numberOf(award.ano),
    papel: shown(award.papel),
    situacao: shown(award.situacao),
    produto_nome: shown(award.produto_nome),
    produto_tipo: shown(award.produto_tipo),
    produto_autor: shown(award.produto_autor),
    ies_sigla: shown(award.ies_sigla),
    programa: shown(award.programa),
    area: shown(award.area),
  }));
}

/**
 * The answer of GET /consultor/{id_pessoa}/cv (always 200): `doc` is the index document (at least
 * CURRICULUM_SOURCE_FIELDS), or null when the index has no document for the person.
 */
export function curriculumAnswer(doc: Partial<PersonDocument> | null, cvBaseUrl: string): Curriculum | CurriculumNotFound {
  if (!doc) return { encontrado: false, motivo: PERSON_NOT_FOUND };
  const idCv = curriculumId(doc);
  if (idCv === null) return { encontrado: false, motivo: NO_CURRICULUM };
  const supervisions = concludedSupervisions(doc.orientacoes);
  const projects = curriculumProjects(doc.projetos);
  return {
    encontrado: true,
    id_cv: idCv,
    url: cvUrl(cvBaseUrl, idCv),
    nome: shown(doc.nome) ?? '',
    data_nascimento: doc.data_nascimento ?? null,
    nacionalidade: shown(doc.nacionalidade),
    titulacoes: curriculumDegrees(doc.titulacoes),
    idiomas: curriculumLanguages(doc.idiomas),
    areas_conhecimento: curriculumKnowledgeAreas(doc.consultoria),
    endereco_profissional: professionalAddress(doc.enderecos),
    orientacoes_concluidas: supervisions.items,
    total_orientacoes: supervisions.total,
    estatisticas_orientacoes: supervisionStatistics(doc.orientacoes),
    docencias: curriculumTeachings(doc.docencias),
    empregos: curriculumEmployments(doc.empregos),
    projetos: projects.items,
    total_projetos: projects.total,
    premiacoes_detalhadas: curriculumAwards(doc.premiacoes),
    data_atualizacao_cv: null,
  };
}
