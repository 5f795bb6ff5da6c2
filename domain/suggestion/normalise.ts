import { decodeHTML } from 'entities';
import { foldForSearch, repairEncoding } from '../text';

/**
 * A source text as the suggestion shows it: HTML entities decoded (`Sa&uacute;de` → `Saúde`, so a
 * reason or a team sheet never shows entity names) and encoding damage repaired (rule 4,
 * `Jo227o` → `João`).
 */
export function displayText(text: string): string {
  return repairEncoding(decodeHTML(text));
}

/**
 * Rule 3's comparison form of a text: HTML entities decoded (`Ci&ecirc;ncia &amp; Sa&uacute;de` →
 * `Ciência & Saúde`), then folded as everywhere else in the service (accents removed, lower case,
 * whitespace collapsed). Encoding damage is not this function's job: the suggestion compares the
 * displayed texts, already repaired.
 */
export function normaliseForMatch(text: string): string {
  return foldForSearch(decodeHTML(text));
}

/**
 * A text function that keeps its results for the texts it sees again. Within one suggestion the same
 * texts recur across candidates (300 candidates of the benchmark index held 3 333 texts, 318
 * distinct): decoding and folding each once about halved the time of rules 2-6 (~5 → ~3 ms).
 * Meant for one request, not to be kept.
 */
export function memoised(transform: (text: string) => string): (text: string) => string {
  const results = new Map<string, string>();
  return (text) => {
    let result = results.get(text);
    if (result === undefined) {
      result = transform(text);
      results.set(text, result);
    }
    return result;
  };
}

/**
 * The theme as rule 3 compares it: the whole normalised theme, its words longer than 3 characters,
 * and the normalisation the compared texts go through (normaliseForMatch, possibly memoised).
 */
export interface ThemeMatcher {
  whole: string;
  words: string[];
  normalise: (text: string) => string;
}

/** Theme words are the runs of letters and digits of the normalised theme (punctuation separates them). */
const WORD_SEPARATOR = /[^\p{L}\p{N}]+/u;
const MIN_WORD_LENGTH = 4;

export function themeMatcher(tema: string, normalise: (text: string) => string = normaliseForMatch): ThemeMatcher {
  const whole = normaliseForMatch(tema);
  const words = [...new Set(whole.split(WORD_SEPARATOR).filter((word) => word.length >= MIN_WORD_LENGTH))];
  return { whole, words, normalise };
}

/** Rule 3: the text contains the whole normalised theme, or any theme word longer than 3 characters. */
export function matchesTheme(text: string, theme: ThemeMatcher): boolean {
  const field = theme.normalise(text);
  if (theme.whole.length > 0 && field.includes(theme.whole)) return true;
  return theme.words.some((word) => field.includes(word));
}
