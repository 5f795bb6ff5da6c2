import type { StoredEntry } from '../ranking-entry';
import { degreeItems, toRankingLanguage, type DegreeItem, type RankingLanguage } from '../degrees';
import type { Degree, Language, PersonDocument } from '../person-document';
import { cvUrl } from '../ranking-entry';
import { isRecord, listOf, textOf } from '../scoring/dates';
import { sealCatalogueEntry } from '../seals';
import { repairEncoding } from '../text';

/**
 * What the consultant sheet shows, built from the ranking entry (position, scores, seals) and the
 * person's index document (degrees, languages, main activities). Pure: dirty documents are read the
 * way the scoring reads them (absent or malformed lists and fields are skipped, never thrown on).
 */

export type BlockKey = 'bloco_a' | 'bloco_b' | 'bloco_c' | 'bloco_d' | 'bloco_e';

/** The five blocks, in order, with the names the sheet prints (spec "What the service does"). */
export const SHEET_BLOCKS: ReadonlyArray<{ key: BlockKey; letter: string; label: string }> = [
  { key: 'bloco_a', letter: 'A', label: 'Coordenação na agência' },
  { key: 'bloco_b', letter: 'B', label: 'Consultoria' },
  { key: 'bloco_c', letter: 'C', label: 'Avaliações e prêmios' },
  { key: 'bloco_d', letter: 'D', label: 'Indicadores' },
  { key: 'bloco_e', letter: 'E', label: 'Coordenação de PPG' },
];

/** Items printed per activity group; the rest is counted ("e mais N"). */
export const ACTIVITIES_PER_GROUP = 5;

/** The index fields the sheet reads (one `get` with `_source_includes`). */
export const SHEET_DOCUMENT_FIELDS: readonly string[] = [
  'nome',
  'ativo',
  'anos_atuacao',
  'id_cv',
  'idiomas',
  'titulacoes',
  'consultoria.situacao',
  'consultoria.inicio',
  'consultoria.fim',
  'consultoria.ies_nome',
  'consultoria.ies_sigla',
  'coordenacoes_agency',
  'docencias.programa',
  'docencias.ies_nome',
  'docencias.ies_sigla',
  'docencias.categoria',
  'docencias.coordenacoes',
  'premiacoes.premio',
  'premiacoes.premiacao',
  'premiacoes.tipo',
  'premiacoes.papel',
  'premiacoes.ano',
];

export interface SheetRanking {
  posicao: number;
  total_consultores: number;
  pontuacao_total: number;
  blocos: Record<BlockKey, number>;
}

export interface ActivityGroup {
  titulo: string;
  itens: string[];
  /** How many the document has; `itens` holds at most ACTIVITIES_PER_GROUP of them. */
  total: number;
}

export interface ConsultantSheet {
  id_pessoa: number;
  nome: string;
  ativo: boolean;
  anos_atuacao: number | null;
  cv: { id_cv: string; url: string } | null;
  /** Null when the person is in the index but not in the last completed ranking. */
  ranking: SheetRanking | null;
  /** Labels of the seals, in the stored order. */
  selos: string[];
  tipos_atuacao: string[];
  titulacoes: DegreeItem[];
  idiomas: RankingLanguage[];
  atividades: ActivityGroup[];
}

/** Text as displayed: trimmed, with the source's encoding damage repaired (`Jo227o` → `João`). */
function shown(value: unknown): string {
  return repairEncoding(textOf(value));
}

/** `2019-06-01` → `06/2019`; anything else as it is. */
function monthYear(value: unknown): string {
  const text = textOf(value);
  const match = /^(\d{4})-(\d{2})/.exec(text);
  return match ? `${match[2]}/${match[1]}` : text;
}

function period(start: unknown, end: unknown): string {
  const from = monthYear(start);
  const to = monthYear(end);
  if (!from) return to ? `até ${to}` : '';
  return to ? `${from} a ${to}` : `desde ${from}`;
}

/** Non-empty parts joined with ` — `. */
function line(...parts: string[]): string {
  return parts.filter(Boolean).join(' — ');
}

function institution(record: Record<string, unknown>): string {
  return shown(record.ies_sigla) || shown(record.ies_nome);
}

/** Latest first by a `YYYY-MM-DD` (or year) field; unreadable values last. */
function latestFirst(records: Record<string, unknown>[], field: string): Record<string, unknown>[] {
  const key = (record: Record<string, unknown>) => {
    const value = record[field];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  };
  return [...records].sort((a, b) => key(b).localeCompare(key(a)));
}

function group(titulo: string, itens: string[]): ActivityGroup {
  return { titulo, itens: itens.slice(0, ACTIVITIES_PER_GROUP), total: itens.length };
}

function records(value: unknown): Record<string, unknown>[] {
  return listOf(value).filter(isRecord);
}

/** The main activities: consultancy, agency coordinations, PPG teaching, awards (docs/pdf.md). */
export function mainActivities(doc: Partial<PersonDocument> | undefined): ActivityGroup[] {
  if (!doc) return [];
  const consultancy = latestFirst(records(doc.consultoria), 'inicio').map((item) =>
    line(shown(item.situacao), institution(item), period(item.inicio, item.fim)),
  );
  const coordinations = latestFirst(records(doc.coordenacoes_agency), 'inicio').map((item) => {
    const role = shown(item.funcao);
    return line(shown(item.tipo) + (role ? ` (${role})` : ''), shown(item.area_avaliacao), period(item.inicio, item.fim));
  });
  const teaching = records(doc.docencias)
    .filter((item) => shown(item.programa))
    .map((item) => {
      const coordinator = records(item.coordenacoes).length > 0 ? 'coordenador(a) do programa' : '';
      return line(shown(item.programa), institution(item), shown(item.categoria), coordinator);
    });
  const awards = latestFirst(records(doc.premiacoes), 'ano').map((item) => {
    const year = typeof item.ano === 'number' || typeof item.ano === 'string' ? String(item.ano) : '';
    const detail = [shown(item.papel), year].filter(Boolean).join(', ');
    return line(shown(item.premio), shown(item.premiacao) || shown(item.tipo)) + (detail ? ` (${detail})` : '');
  });
  return [
    group('Consultoria', consultancy),
    group('Coordenações na agência', coordinations),
    group('Docência em programas de pós-graduação', teaching),
    group('Premiações', awards),
  ].filter((activity) => activity.total > 0);
}

function languages(doc: Partial<PersonDocument> | undefined): RankingLanguage[] {
  return records(doc?.idiomas)
    .filter((item) => shown(item.idioma))
    .map((item) => {
      const language = toRankingLanguage(item as unknown as Language);
      return {
        idioma: shown(language.idioma),
        nivel_leitura: shown(language.nivel_leitura) || null,
        nivel_escrita: shown(language.nivel_escrita) || null,
        nivel_fala: shown(language.nivel_fala) || null,
        nivel_compreensao: shown(language.nivel_compreensao) || null,
      };
    });
}

const DEGREE_TEXTS = ['grau', 'ies_nome', 'ies_sigla', 'area', 'area_avaliacao', 'programa', 'pais'] as const;

function degrees(doc: Partial<PersonDocument> | undefined): DegreeItem[] {
  return degreeItems(records(doc?.titulacoes) as Degree[]).map((item) => {
    const repaired = { ...item };
    for (const field of DEGREE_TEXTS) {
      const value = item[field];
      if (typeof value === 'string') repaired[field] = repairEncoding(value);
    }
    return repaired;
  });
}

export interface ConsultantSheetInput {
  idPessoa: number;
  /** The ranking entry; null when the person is not in the last completed ranking. */
  entry: StoredEntry | null;
  /** The index document (the SHEET_DOCUMENT_FIELDS of it); undefined when the index has none. */
  doc: Partial<PersonDocument> | undefined;
  totalConsultores: number;
  cvBaseUrl: string;
}

/**
 * The sheet of a person in the ranking, the index or both (the caller answers 404 for neither).
 * Identity (name, active flag, years) comes from the ranking entry when there is one, so it agrees
 * with the position and scores printed next to it; otherwise from the index document.
 */
export function consultantSheet(input: ConsultantSheetInput): ConsultantSheet {
  const { entry, doc } = input;
  const idCv = textOf(doc?.id_cv);
  const declaredYears = doc?.anos_atuacao;
  return {
    id_pessoa: input.idPessoa,
    nome: shown(entry ? entry.nome : doc?.nome),
    ativo: entry ? entry.ativo : doc?.ativo === true,
    anos_atuacao: entry ? entry.anos_atuacao : typeof declaredYears === 'number' && Number.isFinite(declaredYears) ? declaredYears : null,
    cv: idCv ? { id_cv: idCv, url: cvUrl(input.cvBaseUrl, idCv) } : null,
    ranking: entry
      ? {
          posicao: entry.posicao,
          total_consultores: input.totalConsultores,
          pontuacao_total: entry.pontuacao_total,
          blocos: {
            bloco_a: entry.bloco_a,
            bloco_b: entry.bloco_b,
            bloco_c: entry.bloco_c,
            bloco_d: entry.bloco_d,
            bloco_e: entry.bloco_e,
          },
        }
      : null,
    selos: (entry?.selos ?? []).map((code) => sealCatalogueEntry(code).label),
    tipos_atuacao: entry?.tipos_atuacao ?? [],
    titulacoes: degrees(doc),
    idiomas: languages(doc),
    atividades: mainActivities(doc),
  };
}
