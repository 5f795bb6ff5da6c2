import { z } from 'zod';
import { degreeItems, degreeItemSchema, type DegreeItem } from './degrees';
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
/** The reason when the index could not be read (then its cause): the route still answers 200. */
export const CURRICULUM_UNREADABLE = 'Não foi possível ler o currículo no índice: ';

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

const shownText = z.string().nullable();

export const curriculumLanguageSchema = z.object({
  idioma: shownText,
  proficiencia_leitura: shownText,
  proficiencia_escrita: shownText,
  proficiencia_fala: shownText,
  proficiencia_compreensao: shownText,
});
export type CurriculumLanguage = z.infer<typeof curriculumLanguageSchema>;

export const curriculumKnowledgeAreaSchema = z.object({ nome: z.string(), area_avaliacao: shownText });
export type CurriculumKnowledgeArea = z.infer<typeof curriculumKnowledgeAreaSchema>;

export const professionalAddressSchema = z.object({
  logradouro: shownText,
  numero: shownText.meta({ description: 'As stored (`s/n` possible)' }),
  complemento: shownText,
  bairro: shownText,
  cep: shownText.meta({ description: 'As stored' }),
  cidade: shownText,
  pais: shownText,
});
export type ProfessionalAddress = z.infer<typeof professionalAddressSchema>;

export const concludedSupervisionSchema = z.object({
  tipo: shownText,
  titulo: shownText,
  ano: z.number().nullable(),
  orientando: shownText,
  programa: shownText,
  ies: shownText,
});
export type ConcludedSupervision = z.infer<typeof concludedSupervisionSchema>;

const supervisionCount = z.number().int().min(0);

export const supervisionStatisticsSchema = z.object({
  mestrado_finalizado: supervisionCount,
  doutorado_finalizado: supervisionCount,
  mestrado_andamento: supervisionCount,
  doutorado_andamento: supervisionCount,
  pos_doutorado: supervisionCount.meta({ description: 'Post-doctoral supervisions in any state' }),
});
export type SupervisionStatistics = z.infer<typeof supervisionStatisticsSchema>;

export const curriculumTeachingSchema = z.object({
  programa: shownText,
  codigo_programa: shownText,
  modalidade: shownText,
  situacao_programa: shownText,
  ies_nome: shownText,
  ies_sigla: shownText,
  area: shownText,
  area_avaliacao: shownText,
  categoria: shownText,
  tipo_vinculo: shownText,
  regime_trabalho: shownText,
  carga_horaria: z.number().nullable(),
  linhas_pesquisa_ativas: z
    .array(z.string())
    .max(MAX_ACTIVE_RESEARCH_LINES)
    .meta({ description: 'Names of the research lines without an end, stored order, at most 5' }),
  total_linhas_pesquisa: z.number().int().min(0).meta({ description: 'The active research lines, counted before the cut to 5' }),
});
export type CurriculumTeaching = z.infer<typeof curriculumTeachingSchema>;

export const curriculumEmploymentSchema = z.object({
  empregador: shownText,
  cnpj: shownText,
  tipo_emprego: shownText,
  atividade: shownText,
  vinculo: shownText,
  profissao: shownText,
  periodos: z.array(z.object({ inicio: shownText, fim: shownText })),
});
export type CurriculumEmployment = z.infer<typeof curriculumEmploymentSchema>;

export const curriculumProjectSchema = z.object({
  nome: z.string(),
  situacao: shownText,
  ano_inicio: z.number().nullable(),
  linha_pesquisa: shownText,
  programa: shownText,
  ies_sigla: shownText,
  area: shownText,
});
export type CurriculumProject = z.infer<typeof curriculumProjectSchema>;

export const curriculumAwardSchema = z.object({
  premio: shownText,
  evento: shownText,
  premiacao: shownText,
  ano: z.number().nullable(),
  papel: shownText,
  situacao: shownText,
  produto_nome: shownText,
  produto_tipo: shownText,
  produto_autor: shownText,
  ies_sigla: shownText,
  programa: shownText,
  area: shownText,
});
export type CurriculumAward = z.infer<typeof curriculumAwardSchema>;

export const curriculumSchema = z
  .object({
    encontrado: z.literal(true),
    id_cv: z.string(),
    url: z.string().meta({ description: '`<CV_BASE_URL>/<id_cv>`' }),
    nome: z.string(),
    data_nascimento: z.string().nullable().meta({ description: 'As stored (`YYYY-MM-DD`, a malformed date untouched)' }),
    nacionalidade: shownText,
    titulacoes: z.array(degreeItemSchema),
    idiomas: z.array(curriculumLanguageSchema),
    areas_conhecimento: z
      .array(curriculumKnowledgeAreaSchema)
      .meta({ description: 'Of every consultancy period, each (nome, area_avaliacao) pair once' }),
    endereco_profissional: professionalAddressSchema
      .nullable()
      .meta({ description: 'The first address, in stored order, that is Profissional or flagged as main; null when none is' }),
    orientacoes_concluidas: z
      .array(concludedSupervisionSchema)
      .max(MAX_CONCLUDED_SUPERVISIONS)
      .meta({ description: 'Concluded supervisions, most recent first, at most 20' }),
    total_orientacoes: z.number().int().min(0).meta({ description: 'Concluded supervisions, counted before the cut to 20' }),
    estatisticas_orientacoes: supervisionStatisticsSchema.nullable().meta({ description: 'Null when every count is 0' }),
    docencias: z.array(curriculumTeachingSchema),
    empregos: z.array(curriculumEmploymentSchema),
    projetos: z.array(curriculumProjectSchema).max(MAX_PROJECTS).meta({ description: 'Named projects, most recent first, at most 30' }),
    total_projetos: z.number().int().min(0).meta({ description: 'Named projects, counted before the cut to 30' }),
    premiacoes_detalhadas: z.array(curriculumAwardSchema),
    data_atualizacao_cv: z.null().meta({ description: 'Always null' }),
  })
  .meta({ id: 'Curriculum' });
export type Curriculum = z.infer<typeof curriculumSchema>;

export const curriculumNotFoundSchema = z
  .object({
    encontrado: z.literal(false),
    motivo: z.union([z.enum([PERSON_NOT_FOUND, NO_CURRICULUM]), z.templateLiteral([CURRICULUM_UNREADABLE, z.string()])]).meta({
      description: `No document for the person, a document without a curriculum identifier, or the index could not be read (\`${CURRICULUM_UNREADABLE}<cause>\`)`,
    }),
  })
  .meta({ id: 'CurriculumNotFound' });

/** The answer of GET /consultor/{id_pessoa}/cv (always 200). */
export const curriculumAnswerSchema = z.discriminatedUnion('encontrado', [curriculumSchema, curriculumNotFoundSchema]);
export type CurriculumAnswer = z.infer<typeof curriculumAnswerSchema>;

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
    .map((item): ConcludedSupervision => ({
      tipo: shown(item.tipo),
      titulo: shown(item.titulo),
      ano: numberOf(item.ano),
      orientando: shown(item.orientando),
      programa: shown(item.programa),
      ies: shown(item.ies),
    }));
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
export function curriculumAnswer(doc: Partial<PersonDocument> | null, cvBaseUrl: string): CurriculumAnswer {
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
