/**
 * Block D: indicators. Funding grants by modality (current grants in full, finished ones at a
 * fraction), participations, supervisions by level, role and status, examination boards by level;
 * each group capped, then the block capped. docs/scoring.md has the table and examples.
 */

import type { PersonDocument } from '../person-document';
import { isRecord, listOf, parseReferenceDate, parseYear, readPeriod, textOf, yearOfDay, type Day } from './dates';
import { capItems, closeBlock, roundPoints, SCORING, type BlockScore, type ScoreItem } from './parameters';

export type GrantFamily = 'PQ' | 'DT' | 'OUTRA';

/** A usable grant: `codigo` is the modality in the table (`PQ-1A`), or `PQ` / `DT` / `OUTRA`. */
export interface GrantRecord {
  codigo: string;
  familia: GrantFamily;
  current: boolean;
}

export type Level = 'POSDOC' | 'DOUT' | 'MEST' | 'GRAD';
export type SupervisionLevelCode = Exclude<Level, 'GRAD'>;
export type SupervisionRoleCode = 'ORIENT' | 'COORIENT';

export interface SupervisionRecord {
  nivel: SupervisionLevelCode;
  papel: SupervisionRoleCode;
  concluida: boolean;
}

/** What block D reads from a document, once. */
export interface Indicators {
  grants: GrantRecord[];
  participations: number;
  supervisions: SupervisionRecord[];
  boards: Record<Level, number>;
}

const GRANT_TABLE: Readonly<Record<string, number>> = SCORING.blockD.grants.byModality;
/** Item order of the grants: the table's order, then the family defaults and the others. */
const GRANT_CODES: readonly string[] = [...Object.keys(GRANT_TABLE), 'PQ', 'DT', 'OUTRA'];

function removeSeparators(text: string): string {
  return text.replaceAll(' ', '').replaceAll('-', '').replaceAll('_', '');
}

/**
 * The grant's code: `PQ-1A` as written, or normalised from variants such as `pq 1a`, `PQ1A`, `PQ_1A`,
 * or `modalidade` `PQ` with `nivel` `1A`. A PQ or DT level not in the table gives the family code;
 * a level must start with a digit or be `SR`, so `DTI` is another modality.
 */
export function grantCode(modalidade: unknown, nivel: unknown): { codigo: string; familia: GrantFamily } | undefined {
  if (typeof modalidade === 'string' && Object.hasOwn(GRANT_TABLE, modalidade)) {
    return { codigo: modalidade, familia: modalidade.startsWith('PQ') ? 'PQ' : 'DT' };
  }
  const compact = removeSeparators(textOf(modalidade).toUpperCase());
  if (!compact) return undefined;
  const family = compact.slice(0, 2);
  if (family !== 'PQ' && family !== 'DT') return { codigo: 'OUTRA', familia: 'OUTRA' };
  const level = compact.length > 2 ? compact.slice(2) : removeSeparators(textOf(nivel).toUpperCase());
  if (level === '') return { codigo: family, familia: family };
  const first = level.charCodeAt(0);
  if (!(first >= 48 && first <= 57) && level !== 'SR') return { codigo: 'OUTRA', familia: 'OUTRA' };
  const codigo = `${family}-${level}`;
  return { codigo: Object.hasOwn(GRANT_TABLE, codigo) ? codigo : family, familia: family };
}

/** Mestrado… → MEST, Doutorado… → DOUT, Pós-Doutorado / Pos-doc… → POSDOC, Graduação… → GRAD. */
export function levelOf(nivel: unknown): Level | undefined {
  if (nivel === 'Doutorado') return 'DOUT';
  if (nivel === 'Mestrado') return 'MEST';
  if (nivel === 'Pós-Doutorado') return 'POSDOC';
  const lower = textOf(nivel).toLowerCase();
  if (lower.startsWith('doutorado')) return 'DOUT';
  if (lower.startsWith('mestrado')) return 'MEST';
  if (lower.startsWith('pós') || lower.startsWith('pos')) return 'POSDOC';
  if (lower.startsWith('gradua')) return 'GRAD';
  return undefined;
}

/** Orientador(a) → ORIENT; Coorientador(a) / Co-orientador(a) → COORIENT. */
function supervisionRole(papel: unknown): SupervisionRoleCode | undefined {
  if (papel === 'Orientador') return 'ORIENT';
  if (papel === 'Coorientador') return 'COORIENT';
  const lower = textOf(papel).toLowerCase();
  if (lower.startsWith('orient')) return 'ORIENT';
  if (lower.startsWith('co')) return 'COORIENT';
  return undefined;
}

/** `concluida` when it is a boolean; otherwise `tipo` saying "Concluída" (any case). */
function isConcluded(concluida: unknown, tipo: unknown): boolean {
  if (typeof concluida === 'boolean') return concluida;
  return textOf(tipo).toLowerCase().includes('conclu');
}

/**
 * Reads grants (a readable period that has started), participations and boards (a year up to the
 * reference year), and supervisions (known level and role; a year, when given, up to the reference year).
 */
export function readIndicators(doc: PersonDocument, ref: Day): Indicators {
  const refYear = yearOfDay(ref);
  const read: Indicators = { grants: [], participations: 0, supervisions: [], boards: { POSDOC: 0, DOUT: 0, MEST: 0, GRAD: 0 } };

  for (const grant of listOf(doc.bolsas_funder)) {
    if (!isRecord(grant)) continue;
    const code = grantCode(grant.modalidade, grant.nivel);
    if (!code) continue;
    const period = readPeriod(grant.inicio, grant.fim, ref);
    if (period) read.grants.push({ codigo: code.codigo, familia: code.familia, current: period.current });
  }

  for (const participation of listOf(doc.participacoes)) {
    if (isRecord(participation) && !Number.isNaN(parseYear(participation.ano, refYear))) read.participations++;
  }

  for (const supervision of listOf(doc.orientacoes)) {
    if (!isRecord(supervision)) continue;
    const ano = supervision.ano;
    if (ano !== null && ano !== undefined && Number.isNaN(parseYear(ano, refYear))) continue;
    const nivel = levelOf(supervision.nivel);
    const papel = supervisionRole(supervision.papel);
    if (!nivel || nivel === 'GRAD' || !papel) continue;
    read.supervisions.push({ nivel, papel, concluida: isConcluded(supervision.concluida, supervision.tipo) });
  }

  for (const board of listOf(doc.membros_banca)) {
    if (!isRecord(board) || Number.isNaN(parseYear(board.ano, refYear))) continue;
    const nivel = levelOf(board.nivel);
    if (nivel) read.boards[nivel]++;
  }
  return read;
}

/** Points of a grant code while current. */
function grantValue(codigo: string): number {
  const p = SCORING.blockD.grants;
  if (codigo === 'PQ') return p.pqDefault;
  if (codigo === 'DT') return p.dtDefault;
  if (codigo === 'OUTRA') return p.other;
  return GRANT_TABLE[codigo] ?? p.other;
}

const GRANT_TEXT: Readonly<Record<string, string>> = {
  PQ: 'Bolsa PQ de nível não tabelado',
  DT: 'Bolsa DT de nível não tabelado',
  OUTRA: 'Outras bolsas',
};

function scoreGrants(items: ScoreItem[], grants: readonly GrantRecord[]): void {
  const p = SCORING.blockD.grants;
  const from = items.length;
  if (grants.length > 0) {
    for (const codigo of GRANT_CODES) {
      let current = 0;
      let past = 0;
      for (const grant of grants) {
        if (grant.codigo !== codigo) continue;
        if (grant.current) current++;
        else past++;
      }
      if (current + past === 0) continue;
      const value = grantValue(codigo);
      const pastValue = roundPoints(value * p.pastFactor);
      const parts: string[] = [];
      if (current > 0) parts.push(`${current} vigente(s) × ${value}`);
      if (past > 0) parts.push(`${past} encerrada(s) × ${pastValue}`);
      items.push({
        codigo: `BOLSA_${codigo}`,
        descricao: `${GRANT_TEXT[codigo] ?? `Bolsa ${codigo}`}: ${parts.join(' + ')}`,
        pontos: roundPoints(current * value + past * pastValue),
      });
    }
  }
  capItems(items, from, p.cap, 'TETO_BOLSAS', `Teto de bolsas: ${p.cap}`);
}

const LEVEL_TEXT: Readonly<Record<Level, string>> = {
  POSDOC: 'pós-doutorado',
  DOUT: 'doutorado',
  MEST: 'mestrado',
  GRAD: 'graduação',
};
const SUPERVISION_LEVELS: readonly SupervisionLevelCode[] = ['POSDOC', 'DOUT', 'MEST'];
const SUPERVISION_ROLES: readonly SupervisionRoleCode[] = ['ORIENT', 'COORIENT'];

/** One kind of supervision item: role × status × level, with its code, text and points each. */
interface SupervisionKind {
  codigo: string;
  text: string;
  each: number;
}

/** The twelve kinds in item order (main supervisor first, concluded first, then by level); see `kindIndex`. */
const SUPERVISION_KINDS: readonly SupervisionKind[] = SUPERVISION_ROLES.flatMap((papel) =>
  [true, false].flatMap((concluida) =>
    SUPERVISION_LEVELS.map((nivel) => {
      const p = SCORING.blockD.supervisions;
      return {
        codigo: `${papel}_${nivel}_${concluida ? 'CONCL' : 'ANDAM'}`,
        text: `${papel === 'ORIENT' ? 'orientação(ões)' : 'coorientação(ões)'} de ${LEVEL_TEXT[nivel]} ${
          concluida ? 'concluída(s)' : 'em andamento'
        }`,
        each: roundPoints(p[nivel] * (papel === 'COORIENT' ? p.coSupervisorFactor : 1) * (concluida ? 1 : p.ongoingFactor)),
      };
    }),
  ),
);

function kindIndex(supervision: SupervisionRecord): number {
  const level = supervision.nivel === 'POSDOC' ? 0 : supervision.nivel === 'DOUT' ? 1 : 2;
  return (supervision.papel === 'ORIENT' ? 0 : 6) + (supervision.concluida ? 0 : 3) + level;
}

function scoreSupervisions(items: ScoreItem[], supervisions: readonly SupervisionRecord[]): void {
  const cap = SCORING.blockD.supervisions.cap;
  if (supervisions.length === 0) return;
  const counts = new Array<number>(SUPERVISION_KINDS.length).fill(0);
  for (const supervision of supervisions) (counts[kindIndex(supervision)] as number)++;
  const from = items.length;
  SUPERVISION_KINDS.forEach((kind, index) => {
    const count = counts[index] as number;
    if (count === 0) return;
    items.push({ codigo: kind.codigo, descricao: `${count} ${kind.text} × ${kind.each}`, pontos: roundPoints(count * kind.each) });
  });
  capItems(items, from, cap, 'TETO_ORIENTACOES', `Teto de orientações: ${cap}`);
}

const BOARD_LEVELS: readonly Level[] = ['POSDOC', 'DOUT', 'MEST', 'GRAD'];

/** Block D from what `readIndicators` read. */
export function scoreIndicators(read: Indicators): BlockScore {
  const p = SCORING.blockD;
  const items: ScoreItem[] = [];

  scoreGrants(items, read.grants);

  if (read.participations > 0) {
    items.push({
      codigo: 'PARTICIPACOES',
      descricao: `${read.participations} participação(ões) × ${p.participations.each}`,
      pontos: roundPoints(read.participations * p.participations.each),
    });
    const cap = p.participations.cap;
    capItems(items, items.length - 1, cap, 'TETO_PARTICIPACOES', `Teto de participações: ${cap}`);
  }

  scoreSupervisions(items, read.supervisions);

  const from = items.length;
  for (const nivel of BOARD_LEVELS) {
    const count = read.boards[nivel];
    if (count > 0) {
      items.push({
        codigo: `BANCA_${nivel}`,
        descricao: `${count} banca(s) de ${LEVEL_TEXT[nivel]} × ${p.boards[nivel]}`,
        pontos: roundPoints(count * p.boards[nivel]),
      });
    }
  }
  capItems(items, from, p.boards.cap, 'TETO_BANCAS', `Teto de bancas: ${p.boards.cap}`);

  return closeBlock(items, p.cap, 'D');
}

export function scoreBlockD(doc: PersonDocument, referenceDate: string): BlockScore {
  return scoreIndicators(readIndicators(doc, parseReferenceDate(referenceDate)));
}
