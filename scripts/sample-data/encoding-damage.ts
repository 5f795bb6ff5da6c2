import { isRepairable } from '../../domain/text';

/**
 * The encoding damage seen in the source system: an accented letter written as its Latin-1 code in
 * three decimal digits (`João` → `Jo227o`). The set of letters is exactly the one the service repairs
 * (specification, suggestion rule 4, `isRepairable`); the repair only undoes a code between two letters.
 */

export const isDamageableCode = isRepairable;

/** Replaces every accented Latin-1 letter by its decimal code (always three digits here: 192..252). */
export function damageText(text: string): string {
  let damaged = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    damaged += isDamageableCode(code) ? String(code) : char;
  }
  return damaged;
}
