import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretBoxError, createSecretBox } from '../../../../src/edges/outbound/store/secret-box';
import { SECRET_KEY_FILE, loadOrCreateSecretKey } from '../../../../src/edges/outbound/store/secret-key';

const KEY = 'k'.repeat(40);

const HERE = { table: 'creator_credentials', column: 'access_token_enc', row: '42' };

/** A value sealed the way Tierlink sealed before values were bound to their rows (`v1`, no associated data). */
function sealUnbound(key: string, plaintext: string): string {
  const encryption = Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.alloc(0), 'tierlink encryption v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryption, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

test('a sealed value opens with the same key in the same place, and looks nothing like the plaintext', () => {
  const box = createSecretBox(KEY);
  const sealed = box.encrypt('creator-access-token-123', HERE);
  expect(sealed).not.toContain('creator-access-token');
  expect(sealed.startsWith('v2.')).toBe(true);
  expect(box.decrypt(sealed, HERE)).toBe('creator-access-token-123');
  expect(box.isCurrent(sealed)).toBe(true);
  expect(box.encrypt('same', HERE)).not.toBe(box.encrypt('same', HERE));
});

test('a sealed value is bound to its table, column and row: moved anywhere else it does not open', () => {
  const box = createSecretBox(KEY);
  const sealed = box.encrypt('creator-access-token-123', HERE);
  for (const elsewhere of [
    { ...HERE, row: '43' },
    { ...HERE, column: 'refresh_token_enc' },
    { table: 'webhooks', column: 'secret_enc', row: '42' },
  ]) {
    expect(() => box.decrypt(sealed, elsewhere)).toThrow(SecretBoxError);
  }
});

test('an altered value or another key fails loudly', () => {
  const sealed = createSecretBox(KEY).encrypt('secret', HERE);
  const parts = sealed.split('.');
  const altered = [...parts.slice(0, 4), Buffer.from('other!').toString('base64url')].join('.');
  expect(() => createSecretBox(KEY).decrypt(altered, HERE)).toThrow(SecretBoxError);
  expect(() => createSecretBox('x'.repeat(40)).decrypt(sealed, HERE)).toThrow('neither SECRET_KEY nor SECRET_KEY_PREVIOUS');
  expect(() => createSecretBox(KEY).decrypt('plain', HERE)).toThrow(SecretBoxError);
  expect(() => createSecretBox('x'.repeat(40)).decrypt(sealUnbound(KEY, 'old'), HERE)).toThrow('wrong SECRET_KEY');
});

test('values sealed before the binding still open, and are reported as not current (start-up seals them again)', () => {
  const box = createSecretBox(KEY);
  const old = sealUnbound(KEY, 'from-an-older-release');
  expect(box.decrypt(old, HERE)).toBe('from-an-older-release');
  expect(box.isCurrent(old)).toBe(false);
});

test('during a rotation the previous key still opens its values and verifies its signatures; the new key seals and signs', () => {
  const OLD = 'o'.repeat(40);
  const before = createSecretBox(OLD);
  const sealed = before.encrypt('token', HERE);
  const signature = before.sign('state:abc');
  const rotating = createSecretBox(KEY, OLD);
  expect(rotating.decrypt(sealed, HERE)).toBe('token');
  expect(rotating.decrypt(sealUnbound(OLD, 'older'), HERE)).toBe('older');
  expect(rotating.isCurrent(sealed)).toBe(false);
  expect(rotating.verify('state:abc', signature)).toBe(true);
  const resealed = rotating.encrypt('token', HERE);
  expect(rotating.isCurrent(resealed)).toBe(true);
  expect(createSecretBox(KEY).decrypt(resealed, HERE)).toBe('token');
  expect(() => before.decrypt(resealed, HERE)).toThrow(SecretBoxError);
  expect(before.verify('state:abc', rotating.sign('state:abc'))).toBe(false);
  // Once the previous key is removed, what it sealed no longer opens.
  expect(() => createSecretBox(KEY).decrypt(sealed, HERE)).toThrow(SecretBoxError);
  expect(createSecretBox(KEY).verify('state:abc', signature)).toBe(false);
});

test('signatures verify only for the same message and key', () => {
  const box = createSecretBox(KEY);
  const sig = box.sign('state:abc');
  expect(box.verify('state:abc', sig)).toBe(true);
  expect(box.verify('state:abd', sig)).toBe(false);
  expect(createSecretBox('y'.repeat(40)).verify('state:abc', sig)).toBe(false);
  expect(box.verify('state:abc', sig.slice(0, -2))).toBe(false);
});

test('without SECRET_KEY a key is generated into DATA_DIR with mode 0600 and reused', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-key-'));
  const key = loadOrCreateSecretKey(undefined, dir);
  expect(key.length).toBeGreaterThanOrEqual(32);
  expect(fs.statSync(path.join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
  expect(loadOrCreateSecretKey(undefined, dir)).toBe(key);
  expect(loadOrCreateSecretKey('configured'.repeat(4), dir)).toBe('configured'.repeat(4));
  fs.rmSync(dir, { recursive: true });
});
