import { generateKeyPairSync, sign } from 'node:crypto';

export interface SigningKey {
  /** The raw 32-byte public key in hex: what the Developer Portal shows as the application's public key. */
  publicKeyHex: string;
  /** Hex Ed25519 signature of `message`. */
  sign(message: Buffer): string;
}

/** A fresh Ed25519 key pair, as Discord holds one per application (docs/discord-api-notes.md §3). */
export function createSigningKey(): SigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  const publicKeyHex = Buffer.from(jwk.x ?? '', 'base64url').toString('hex');
  return { publicKeyHex, sign: (message) => sign(null, message, privateKey).toString('hex') };
}
