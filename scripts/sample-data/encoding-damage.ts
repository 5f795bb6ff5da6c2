/**
 * The encoding damage seen in the source system: an accented letter written as its Latin-1 code in
 * three decimal digits (`João` → `Jo227o`). The set of letters is exactly the one the service repairs
 * (specification, suggestion rule 4), so a damaged text can always be repaired back.
 */

const DAMAGED_CODE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [192, 196],
  [199, 207],
  [209, 214],
  [217, 220],
  [224, 228],
  [231, 239],
  [241, 246],
  [249, 252],
];

export function isDamageableCode(code: number): boolean {
  return DAMAGED_CODE_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** Replaces every accented Latin-1 letter by its decimal code (always three digits here: 192..252). */
export function damageText(text: string): string {
  let damaged = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    damaged += isDamageableCode(code) ? String(code) : char;
  }
  return damaged;
}
