import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { createCredentialRepository, credentialSeal } from '../../../../src/edges/outbound/store/repositories/credential-repository';
import { createWebhookRepository } from '../../../../src/edges/outbound/store/repositories/webhook-repository';
import { resealSecrets } from '../../../../src/edges/outbound/store/reseal-secrets';
import { creatorCredentials, webhooks } from '../../../../src/edges/outbound/store/schema';
import { createSecretBox } from '../../../../src/edges/outbound/store/secret-box';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

/**
 * The start-up step that seals every stored secret again in the current form: bound to its row, with
 * SECRET_KEY. Values from before the binding and values sealed with SECRET_KEY_PREVIOUS are
 * converted; the service then reads them with the new key alone.
 */

const OLD = 'old-key-'.repeat(5);
const NEW = 'new-key-'.repeat(5);
const AT = new Date('2026-11-20T12:00:00Z');
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t.close());
beforeEach(() => t.reset());

function sealUnbound(key: string, plaintext: string): string {
  const encryption = Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.alloc(0), 'tierlink encryption v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryption, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

const webhook = (id: string, secret: string) => ({
  id,
  campaignId: '7',
  uri: 'https://tierlink.example.com/webhooks/patreon',
  triggers: ['members:create'],
  secret,
  paused: false,
  numConsecutiveTimesFailed: 0,
  lastAttemptedAt: null,
});

test('values of an older release (unbound) are sealed again bound to their rows, and the service reads them', async () => {
  const { db } = t.database;
  const box = createSecretBox(NEW);
  await db.insert(creatorCredentials).values({
    creatorUserId: '100',
    accessTokenEnc: sealUnbound(NEW, 'access-100'),
    refreshTokenEnc: sealUnbound(NEW, 'refresh-100'),
    scopes: 'identity',
  });
  await db.insert(webhooks).values({
    id: 'w1',
    campaignId: '7',
    uri: 'https://tierlink.example.com/webhooks/patreon',
    triggers: ['members:create'],
    secretEnc: sealUnbound(NEW, 'hook-secret'),
  });

  expect(await resealSecrets(db, box, silentLogger)).toEqual({ resealed: 3, unreadable: 0 });
  const [row] = await db.select().from(creatorCredentials);
  expect(row!.accessTokenEnc.startsWith('v2.')).toBe(true);
  expect(box.decrypt(row!.accessTokenEnc, credentialSeal('100', 'access_token_enc'))).toBe('access-100');
  expect(await createCredentialRepository(db, box).load('100')).toMatchObject({ accessToken: 'access-100', refreshToken: 'refresh-100' });
  expect(await createWebhookRepository(db, box).secrets()).toEqual([{ webhookId: 'w1', campaignId: '7', secret: 'hook-secret' }]);
  // Once current, a start reads and writes nothing.
  expect(await resealSecrets(db, box, silentLogger)).toEqual({ resealed: 0, unreadable: 0 });
});

test('a key rotation: values sealed with SECRET_KEY_PREVIOUS are sealed with SECRET_KEY, after which the old key is not needed', async () => {
  const { db } = t.database;
  const before = createSecretBox(OLD);
  await createCredentialRepository(db, before).save('100', { accessToken: 'a', refreshToken: 'r', expiresAt: null, scopes: [] }, AT);
  await createWebhookRepository(db, before).upsert(webhook('w1', 'hook-secret'), AT);

  const rotating = createSecretBox(NEW, OLD);
  expect(await resealSecrets(db, rotating, silentLogger)).toEqual({ resealed: 3, unreadable: 0 });

  const after = createSecretBox(NEW);
  expect(await createCredentialRepository(db, after).load('100')).toMatchObject({ accessToken: 'a', refreshToken: 'r' });
  expect(await createWebhookRepository(db, after).secrets()).toEqual([{ webhookId: 'w1', campaignId: '7', secret: 'hook-secret' }]);
  await expect(createCredentialRepository(db, before).load('100')).rejects.toThrow('neither SECRET_KEY nor SECRET_KEY_PREVIOUS');
});

test('a sealed value copied into another row does not open there', async () => {
  const { db } = t.database;
  const box = createSecretBox(NEW);
  const credentials = createCredentialRepository(db, box);
  await credentials.save('100', { accessToken: 'victim', refreshToken: 'victim-r', expiresAt: null, scopes: [] }, AT);
  await credentials.save('200', { accessToken: 'attacker', refreshToken: 'attacker-r', expiresAt: null, scopes: [] }, AT);
  const [victim] = await db.select().from(creatorCredentials).where(eq(creatorCredentials.creatorUserId, '100'));
  await db
    .update(creatorCredentials)
    .set({ accessTokenEnc: victim!.accessTokenEnc, refreshTokenEnc: victim!.refreshTokenEnc })
    .where(eq(creatorCredentials.creatorUserId, '200'));
  await expect(credentials.load('200')).rejects.toThrow('sealed for another place');
  expect(await credentials.load('100')).toMatchObject({ accessToken: 'victim' });
});

test('a value neither key opens is left alone and counted, not fatal', async () => {
  const { db } = t.database;
  await createWebhookRepository(db, createSecretBox('lost-key'.repeat(5))).upsert(webhook('w1', 'x'), AT);
  const [before] = await db.select().from(webhooks);
  expect(await resealSecrets(db, createSecretBox(NEW), silentLogger)).toEqual({ resealed: 0, unreadable: 1 });
  const [after] = await db.select().from(webhooks);
  expect(after!.secretEnc).toBe(before!.secretEnc);
});
