import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretBoxError, createSecretBox } from '../../../src/edges/store/secret-box';
import { SECRET_KEY_FILE, loadOrCreateSecretKey } from '../../../src/edges/store/secret-key';

const KEY = 'k'.repeat(40);

test('a sealed value opens with the same key, and looks nothing like the plaintext', () => {
  const box = createSecretBox(KEY);
  const sealed = box.encrypt('creator-access-token-123');
  expect(sealed).not.toContain('creator-access-token');
  expect(sealed.startsWith('v1.')).toBe(true);
  expect(box.decrypt(sealed)).toBe('creator-access-token-123');
  expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
});

test('an altered value or another key fails loudly', () => {
  const sealed = createSecretBox(KEY).encrypt('secret');
  const parts = sealed.split('.');
  const altered = [...parts.slice(0, 3), Buffer.from('other!').toString('base64url')].join('.');
  expect(() => createSecretBox(KEY).decrypt(altered)).toThrow(SecretBoxError);
  expect(() => createSecretBox('x'.repeat(40)).decrypt(sealed)).toThrow('wrong SECRET_KEY');
  expect(() => createSecretBox(KEY).decrypt('plain')).toThrow(SecretBoxError);
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
