import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of the agents' secrets (docs/agents.md). Each value gets a fresh random
 * 96-bit IV; the 128-bit tag makes any change to ciphertext, IV, tag or context fail to open.
 * The context (additional authenticated data) binds a ciphertext to its owner, so a row copied
 * to another agent or name does not decrypt.
 */

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedSecret {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
}

/** No key configured: secrets can be neither stored nor read. */
export class SecretsKeyMissingError extends Error {
  override name = 'SecretsKeyMissingError';
  constructor() {
    super('agent secrets are not available: set AGENT_SECRETS_KEY (64 hexadecimal characters) to store and read them');
  }
}

/** The data does not open with this key and context: tampered, or sealed under another key. */
export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/** The 32-byte key from its 64 hexadecimal characters (the form of AGENT_SECRETS_KEY). */
export function secretsKeyFromHex(hex: string | null): Buffer {
  if (hex === null) throw new SecretsKeyMissingError();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('a secrets key is 64 hexadecimal characters (32 bytes)');
  return Buffer.from(hex, 'hex');
}

export function sealSecret(key: Buffer, plaintext: string, context: string): SealedSecret {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext, iv, authTag: cipher.getAuthTag() };
}

export function openSecret(key: Buffer, sealed: SealedSecret, context: string): string {
  if (sealed.iv.length !== IV_BYTES || sealed.authTag.length !== TAG_BYTES) {
    throw new SecretDecryptionError('o segredo cifrado tem o IV ou a tag malformados');
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, sealed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    // The cause (OpenSSL's "unable to authenticate data") says no more than this.
    throw new SecretDecryptionError('o segredo não pode ser decifrado: dados adulterados ou outra chave');
  }
}
