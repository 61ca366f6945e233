import { signBody } from '@tierlink/sandbox/membership-service';
import { matchWebhookSecret, signWebhookBody, verifyWebhookSignature } from '../../../src/app/webhooks/verify-signature';

const body = Buffer.from('{"data":{"type":"member","id":"m-1"}}', 'utf8');

test('signs with HMAC-MD5 in hex: the RFC 2104 vector, and the same bytes the sandbox signs', () => {
  expect(signWebhookBody('Jefe', 'what do ya want for nothing?')).toBe('750c783e6ab0b503eaa86e310a5db738');
  expect(signWebhookBody('s3cret', body)).toBe(signBody('s3cret', body.toString('utf8')));
});

test('accepts the right signature, in either case of hex', () => {
  const signature = signWebhookBody('s3cret', body);
  expect(verifyWebhookSignature('s3cret', body, signature)).toBe(true);
  expect(verifyWebhookSignature('s3cret', body, signature.toUpperCase())).toBe(true);
});

test.each([
  ['a signature made with another secret', () => signWebhookBody('other', body)],
  ['a truncated signature', (s: string) => s.slice(0, 31)],
  ['a signature with an extra character', (s: string) => `${s}0`],
  ['an empty signature', () => ''],
  ['one changed digit', (s: string) => `${s.slice(0, -1)}${s.endsWith('0') ? '1' : '0'}`],
  ['a base64 encoding of the digest', (s: string) => Buffer.from(s, 'hex').toString('base64')],
])('refuses %s', (_name, alter) => {
  expect(verifyWebhookSignature('s3cret', body, alter(signWebhookBody('s3cret', body)))).toBe(false);
});

test('refuses a body changed after signing, and a missing signature', () => {
  const signature = signWebhookBody('s3cret', body);
  expect(verifyWebhookSignature('s3cret', Buffer.from(`${body.toString()} `), signature)).toBe(false);
  expect(verifyWebhookSignature('s3cret', body, undefined)).toBe(false);
  expect(verifyWebhookSignature('s3cret', body, null)).toBe(false);
});

test('signs the bytes, not a re-serialisation: key order and spacing matter', () => {
  const spaced = Buffer.from('{"data": {"type": "member", "id": "m-1"}}', 'utf8');
  expect(JSON.stringify(JSON.parse(spaced.toString()))).toBe(body.toString());
  expect(verifyWebhookSignature('s3cret', spaced, signWebhookBody('s3cret', body))).toBe(false);
});

test('finds which of several secrets signed the body', () => {
  const candidates = [
    { secret: 'campaign-a', campaignId: 'a' },
    { secret: 'campaign-b', campaignId: 'b' },
  ];
  expect(matchWebhookSecret(candidates, body, signWebhookBody('campaign-b', body))).toEqual({ secret: 'campaign-b', campaignId: 'b' });
  expect(matchWebhookSecret(candidates, body, signWebhookBody('campaign-c', body))).toBeNull();
  expect(matchWebhookSecret([], body, signWebhookBody('campaign-a', body))).toBeNull();
});

test('a missing secret is a programmer error, not a failed verification', () => {
  expect(() => verifyWebhookSignature('', body, 'x')).toThrow(TypeError);
  expect(() => signWebhookBody(undefined as unknown as string, body)).toThrow('[webhooks]');
});
