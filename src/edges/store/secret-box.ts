import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Encryption at rest (AES-256-GCM) and message signing (HMAC-SHA-256), both keyed from SECRET_KEY
 * through HKDF so the two uses never share a key.
 *
 * Ciphertexts are `v1.<iv>.<tag>.<ciphertext>` in base64url: the version lets a later key rotation
 * or algorithm change read old rows.
 */
export interface SecretBox {
  encrypt(plaintext: string): string;
  /** Throws {@link SecretBoxError} when the value was not sealed with this key or was altered. */
  decrypt(sealed: string): string;
  /** A base64url HMAC-SHA-256 of `message`. */
  sign(message: string): string;
  verify(message: string, signature: string): boolean;
}

export class SecretBoxError extends Error {
  override get name(): string {
    return 'SecretBoxError';
  }
}

function deriveKey(secretKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), `tierlink ${purpose}`, 32));
}

export function createSecretBox(secretKey: string): SecretBox {
  if (secretKey.length < 32) throw new SecretBoxError('SECRET_KEY must be at least 32 characters');
  const encryptionKey = deriveKey(secretKey, 'encryption v1');
  const signingKey = deriveKey(secretKey, 'signing v1');
  const mac = (message: string) => createHmac('sha256', signingKey).update(message, 'utf8').digest();
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
        throw new SecretBoxError('not a sealed value');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('cannot decrypt: wrong SECRET_KEY or altered value');
      }
    },
    sign: (message) => mac(message).toString('base64url'),
    verify(message, signature) {
      const expected = mac(message);
      const given = Buffer.from(signature, 'base64url');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
