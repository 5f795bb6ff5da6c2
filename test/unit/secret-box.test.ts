import {
  openSecret,
  SecretDecryptionError,
  SecretsKeyMissingError,
  sealSecret,
  secretsKeyFromHex,
  type SealedSecret,
} from '../../lib/secret-box';

const KEY = secretsKeyFromHex('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
const OTHER_KEY = secretsKeyFromHex('ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100');
const CONTEXT = 'agent-secret\u0000agent-1\u0000API_TOKEN';

/** A copy of `sealed` with one bit of `part` flipped at `index`. */
function flipped(sealed: SealedSecret, part: keyof SealedSecret, index = 0): SealedSecret {
  const bytes = Buffer.from(sealed[part]);
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return { ...sealed, [part]: bytes };
}

describe('secret box (AES-256-GCM)', () => {
  it('opens what it sealed, with accents, emoji and newlines intact', () => {
    const value = 'sk-Ação ☃ 🚀\nline two';
    const sealed = sealSecret(KEY, value, CONTEXT);
    expect(openSecret(KEY, sealed, CONTEXT)).toBe(value);
  });

  it('stores no clear text: ciphertext differs from the value and has its byte length; 12-byte IV, 16-byte tag', () => {
    const value = 'super-secret-value-1234567890';
    const sealed = sealSecret(KEY, value, CONTEXT);
    expect(sealed.ciphertext.length).toBe(Buffer.byteLength(value));
    expect(sealed.ciphertext.toString('utf8')).not.toBe(value);
    expect(sealed.ciphertext.includes(Buffer.from('secret'))).toBe(false);
    expect(sealed.iv.length).toBe(12);
    expect(sealed.authTag.length).toBe(16);
  });

  it('uses a fresh random IV each time: the same value seals differently', () => {
    const seals = Array.from({ length: 20 }, () => sealSecret(KEY, 'same value', CONTEXT));
    expect(new Set(seals.map((sealed) => sealed.iv.toString('hex'))).size).toBe(20);
    expect(new Set(seals.map((sealed) => sealed.ciphertext.toString('hex'))).size).toBe(20);
    for (const sealed of seals) expect(openSecret(KEY, sealed, CONTEXT)).toBe('same value');
  });

  it.each(['ciphertext', 'iv', 'authTag'] as const)('refuses a sealed secret whose %s was changed', (part) => {
    const sealed = sealSecret(KEY, 'tamper me', CONTEXT);
    expect(() => openSecret(KEY, flipped(sealed, part), CONTEXT)).toThrow(SecretDecryptionError);
  });

  it('refuses a truncated tag or IV', () => {
    const sealed = sealSecret(KEY, 'short tag', CONTEXT);
    expect(() => openSecret(KEY, { ...sealed, authTag: sealed.authTag.subarray(0, 4) }, CONTEXT)).toThrow(SecretDecryptionError);
    expect(() => openSecret(KEY, { ...sealed, iv: sealed.iv.subarray(0, 8) }, CONTEXT)).toThrow(SecretDecryptionError);
  });

  it('refuses another key', () => {
    const sealed = sealSecret(KEY, 'for one key only', CONTEXT);
    expect(() => openSecret(OTHER_KEY, sealed, CONTEXT)).toThrow('o segredo não pode ser decifrado: dados adulterados ou outra chave');
  });

  it('refuses another context: a row moved to another agent or name does not open', () => {
    const sealed = sealSecret(KEY, 'bound', CONTEXT);
    expect(() => openSecret(KEY, sealed, 'agent-secret\u0000agent-2\u0000API_TOKEN')).toThrow(SecretDecryptionError);
    expect(() => openSecret(KEY, sealed, 'agent-secret\u0000agent-1\u0000OTHER')).toThrow(SecretDecryptionError);
  });

  it('reads the key from 64 hexadecimal characters; no key names AGENT_SECRETS_KEY; a malformed key is refused', () => {
    expect(KEY.length).toBe(32);
    expect(() => secretsKeyFromHex(null)).toThrow(SecretsKeyMissingError);
    expect(() => secretsKeyFromHex(null)).toThrow(/AGENT_SECRETS_KEY/);
    expect(() => secretsKeyFromHex('abcd')).toThrow('a secrets key is 64 hexadecimal characters (32 bytes)');
    expect(() => secretsKeyFromHex('z'.repeat(64))).toThrow('a secrets key is 64 hexadecimal characters (32 bytes)');
  });
});
