/**
 * File names of the PDF sheets and the Content-Disposition header that carries them
 * (docs/pdf.md, "File names").
 */

/** Longest sanitised name or theme inside a file name, in characters (code points). */
export const NAME_PART_LENGTH = 30;

/** What survives sanitising: letters and digits of any script, space, hyphen, underscore. */
const KEPT = /^[\p{L}\p{N} _-]$/u;

/**
 * The specified rule: every character that is not alphanumeric, space, hyphen or underscore becomes
 * an underscore, then the text is cut to 30 characters. "Alphanumeric" is Unicode letters and digits
 * (as Python's `str.isalnum`), so `João` stays `João`. The text is trimmed and composed (NFC) first,
 * so a decomposed `a` + combining tilde is the letter `ã`, not `a_`. Characters are code points: an
 * emoji becomes one underscore, never half of one.
 */
export function sanitiseNamePart(text: string): string {
  const characters = Array.from(text.trim().normalize('NFC'), (char) => (KEPT.test(char) ? char : '_'));
  return characters.slice(0, NAME_PART_LENGTH).join('');
}

/** `ficha_consultor_<id_pessoa>_<name>_<YYYYMMDD>.pdf` */
export function consultantSheetFileName(idPessoa: number, name: string, day: string): string {
  return `ficha_consultor_${idPessoa}_${sanitiseNamePart(name)}_${day}.pdf`;
}

/** `equipe_<theme>_<YYYYMMDD>.pdf` */
export function teamSheetFileName(theme: string, day: string): string {
  return `equipe_${sanitiseNamePart(theme)}_${day}.pdf`;
}

/** RFC 7230 token characters: a value made only of them needs no quotes. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The ASCII form of a file name for the `filename` parameter: accents dropped (`João` → `Joao`), any
 * other non-ASCII character, a quote or a backslash an underscore (a sanitised name has none of the
 * last two; this keeps the quoted string valid for any input).
 */
export function asciiFileName(fileName: string): string {
  return fileName
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["\\]/gu, '_');
}

/** RFC 8187 (ex 5987) `value-chars`: UTF-8, percent-encoding everything but `attr-char`. */
function extValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `attachment; filename=<name>` as specified. Per RFC 6266: the value is a token when it can be, a
 * quoted string otherwise (names have spaces); a name with non-ASCII characters adds
 * `filename*=UTF-8''<percent-encoded>` (clients that know it prefer it) and keeps an ASCII
 * `filename` for those that do not — a header value must be ASCII to reach every client intact.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = asciiFileName(fileName);
  const plain = TOKEN.test(ascii) ? ascii : `"${ascii}"`;
  return ascii === fileName ? `attachment; filename=${plain}` : `attachment; filename=${plain}; filename*=UTF-8''${extValue(fileName)}`;
}
