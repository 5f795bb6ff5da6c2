/**
 * Text normalisation shared by the name search, the suggestion matching and the displayed texts.
 * Pure functions; Elasticsearch here has no asciifolding, so folding happens in the application.
 */

/** Latin-1 codes of accented letters that the source system wrote as three digits (spec, suggestion rule 4). */
const REPAIRABLE_CODES: ReadonlyArray<readonly [number, number]> = [
  [192, 196],
  [199, 207],
  [209, 214],
  [217, 220],
  [224, 228],
  [231, 239],
  [241, 246],
  [249, 252],
];

const MAX_REPAIR_PASSES = 5;
const DAMAGED_CODE = /(\p{L})(\d{3})(\p{L})/gu;

/** Whether a character code is one of the accented letters that rule 4 repairs. */
export function isRepairable(code: number): boolean {
  return REPAIRABLE_CODES.some(([low, high]) => code >= low && code <= high);
}

/**
 * The damage that repairEncoding undoes, as the source system wrote it: every accented letter of the
 * repairable set as its three-digit Latin-1 code (`João` → `Jo227o`). The suggestion searches for this
 * spelling too; the sample-data generator writes it.
 */
export function damageEncoding(text: string): string {
  let damaged = '';
  for (const char of text.normalize('NFC')) {
    const code = char.charCodeAt(0);
    damaged += isRepairable(code) ? String(code) : char;
  }
  return damaged;
}

/**
 * Repairs encoding damage: a three-digit decimal number between two letters that is the Latin-1
 * code of an accented letter becomes that letter (`Jo227o` → `João`). A match consumes both
 * letters, so in `a227b227c` the second code's left letter is taken by the first match: that is
 * what the further passes (up to 5, as specified) repair. Two codes in a row (`231227`) have no
 * letter between them and stay as they are.
 */
export function repairEncoding(text: string): string {
  let current = text;
  for (let pass = 0; pass < MAX_REPAIR_PASSES; pass += 1) {
    const next = current.replace(DAMAGED_CODE, (match: string, before: string, digits: string, after: string) => {
      const code = Number(digits);
      return isRepairable(code) ? before + String.fromCharCode(code) + after : match;
    });
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Lower case, without accents (NFD, combining marks dropped), inner whitespace collapsed, trimmed. */
export function foldForSearch(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The form of a name the search matches: encoding repaired, folded, and only letters and digits
 * separated by single spaces — so a word-prefix test on it (`LIKE 'w%' OR LIKE '% w%'`) and the
 * FULLTEXT index on it see the same words.
 */
export function nameSearchKey(name: string): string {
  return foldForSearch(repairEncoding(name))
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * Characters kept of each word in the table of name words (`ranking_name_words.palavra`): more
 * than any real name's word; a longer one is stored cut, which keeps every prefix the search can
 * look up there (a longer query word is cut as well and checked whole on the name: db/ranking-queries.ts).
 */
export const NAME_WORD_MAX = 64;

/**
 * The words of a name's search key (nameSearchKey) as the table of name words stores them: each
 * once, in order, cut to NAME_WORD_MAX characters. Migration 0031 fills the table with the same
 * split in SQL, for the entries stored before it.
 */
export function nameWords(searchKey: string): string[] {
  return [...new Set(searchKey.split(' ').flatMap((word) => (word ? [word.slice(0, NAME_WORD_MAX)] : [])))];
}
