import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header GitHub (and the legacy server) use: `sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export const SIGNATURE_HEADER = 'x-hub-signature-256';

export function signatureOf(secret: string, rawBody: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Whether `header` signs `rawBody` with `secret`; compared in constant time (same length first, which only leaks the length). */
export function signatureMatches(secret: string, rawBody: Buffer, header: string): boolean {
  const expected = Buffer.from(signatureOf(secret, rawBody), 'utf8');
  const given = Buffer.from(header.trim(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
