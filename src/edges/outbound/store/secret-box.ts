import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Encryption at rest (AES-256-GCM) and message signing (HMAC-SHA-256), both keyed from SECRET_KEY
 * through HKDF so the two uses never share a key.
 *
 * A sealed value is bound to the place it is stored in: the table, the column and the row's key are
 * the cipher's associated data, so a value copied into another row or column (an attacker with
 * write access to one table, a restore gone wrong) does not open there. Sealed values read
 * `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url); `v1.<iv>.<tag>.<ciphertext>` is the older,
 * unbound form, still opened so that start-up can seal it again (src/edges/outbound/store/reseal-secrets.ts).
 *
 * Key rotation: with SECRET_KEY_PREVIOUS set, values sealed with the previous key still open and
 * signatures made with it still verify; {@link SecretBox.isCurrent} says which values to seal again.
 */
export interface SealContext {
  table: string;
  column: string;
  /** The row's key (its primary key as text). */
  row: string;
}

export interface SecretBox {
  /** Seals `plaintext` with the current key, bound to `context`. */
  encrypt(plaintext: string, context: SealContext): string;
  /**
   * Opens a value sealed for `context` (with the current or the previous key, bound or in the old
   * unbound form). Throws {@link SecretBoxError} when it was sealed with another key, for another
   * place, or was altered.
   */
  decrypt(sealed: string, context: SealContext): string;
  /** True when `sealed` is bound to its place and sealed with the current key: nothing to redo. */
  isCurrent(sealed: string): boolean;
  /** A base64url HMAC-SHA-256 of `message` with the current key. */
  sign(message: string): string;
  /** True when `signature` signs `message` under the current or the previous key. */
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

interface Keyring {
  id: string;
  encryption: Buffer;
  signing: Buffer;
}

function keyring(secretKey: string, name: string): Keyring {
  if (secretKey.length < 32) throw new SecretBoxError(`${name} must be at least 32 characters`);
  return {
    // Names the key inside sealed values without saying anything about it.
    id: deriveKey(secretKey, 'key id v2').subarray(0, 6).toString('base64url'),
    encryption: deriveKey(secretKey, 'encryption v1'),
    signing: deriveKey(secretKey, 'signing v1'),
  };
}

const associatedData = (c: SealContext) => Buffer.from(`tierlink|${c.table}|${c.column}|${c.row}`, 'utf8');

function open(key: Buffer, iv: string, tag: string, body: string, aad: Buffer | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The id a key writes into every value it seals (`v2.<key id>.…`): it names the key without saying
 * anything about it, so a restore can tell which key a backup's sealed values need.
 */
export function secretKeyId(secretKey: string): string {
  return keyring(secretKey, 'SECRET_KEY').id;
}

/** The key id inside a sealed value of the bound form; null for the old unbound form and for anything else. */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split('.');
  return parts[0] === 'v2' && parts.length === 5 ? (parts[1] ?? null) : null;
}

/** `secretKey`: SECRET_KEY; `previousKey`: SECRET_KEY_PREVIOUS during a rotation. */
export function createSecretBox(secretKey: string, previousKey?: string): SecretBox {
  const current = keyring(secretKey, 'SECRET_KEY');
  const previous = previousKey ? keyring(previousKey, 'SECRET_KEY_PREVIOUS') : null;
  const keys = previous ? [current, previous] : [current];
  const mac = (key: Buffer, message: string) => createHmac('sha256', key).update(message, 'utf8').digest();

  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.encryption, iv);
      cipher.setAAD(associatedData(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v2', current.id, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(sealed, context) {
      const parts = sealed.split('.');
      if (parts[0] === 'v2' && parts.length === 5) {
        const [, id, iv, tag, body] = parts as [string, string, string, string, string];
        const key = keys.find((k) => k.id === id);
        if (!key) throw new SecretBoxError('cannot decrypt: sealed with a key that is neither SECRET_KEY nor SECRET_KEY_PREVIOUS');
        try {
          return open(key.encryption, iv, tag, body, associatedData(context));
        } catch {
          throw new SecretBoxError(`cannot decrypt: altered, or sealed for another place than ${context.table}.${context.column}`);
        }
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        const [, iv, tag, body] = parts as [string, string, string, string];
        for (const key of keys) {
          try {
            return open(key.encryption, iv, tag, body, null);
          } catch {
            // the next key, if any
          }
        }
        throw new SecretBoxError('cannot decrypt: wrong SECRET_KEY or altered value');
      }
      throw new SecretBoxError('not a sealed value');
    },
    isCurrent(sealed) {
      const parts = sealed.split('.');
      return parts[0] === 'v2' && parts.length === 5 && parts[1] === current.id;
    },
    sign: (message) => mac(current.signing, message).toString('base64url'),
    verify(message, signature) {
      const given = Buffer.from(signature, 'base64url');
      let ok = false;
      for (const key of keys) {
        const expected = mac(key.signing, message);
        if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
      }
      return ok;
    },
  };
}
