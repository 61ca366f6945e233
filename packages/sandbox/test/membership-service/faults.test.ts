import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson } from './raw-http';

describe('membership-service sandbox: injected faults and the request log', () => {
  let sb: MembershipServiceSandbox;
  let token: string;
  const identity = '/api/oauth2/v2/identity';

  beforeEach(async () => {
    sb = await createMembershipServiceSandbox();
    token = sb.creatorTokens.accessToken;
  });
  afterEach(() => sb.close());

  it('answers a 429 with Retry-After in the header', async () => {
    sb.injectFault({ path: identity, status: 429, retryAfterSeconds: 7 });
    const res = await getJson(sb.url, identity, token);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body.errors[0].status).toBe('429');
    expect((await getJson(sb.url, identity, token)).status).toBe(200);
  });

  it('answers a 429 with retry_after_seconds in the body', async () => {
    sb.injectFault({ path: identity, status: 429, retryAfterSeconds: 2, retryAfterIn: 'body' });
    const res = await getJson(sb.url, identity, token);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(res.body).toMatchObject({ retry_after_seconds: 2, errors: [expect.objectContaining({ status: '429' })] });
  });

  it('matches method and path (string or RegExp), skips afterMatching requests and fails `times` times', async () => {
    sb.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/campaigns/, status: 503, afterMatching: 1, times: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await getJson(sb.url, '/api/oauth2/v2/campaigns', token)).status);
    expect(statuses).toEqual([200, 503, 503, 200]);
    expect((await getJson(sb.url, identity, token)).status).toBe(200);
  });

  it('resets the connection for status "reset"', async () => {
    sb.injectFault({ path: identity, status: 'reset' });
    await expect(fetch(`${sb.url}${identity}`)).rejects.toThrow();
    expect(sb.requests()[0]).toMatchObject({ path: identity, status: 0, faultId: expect.any(String) });
  });

  it('clears faults', async () => {
    const id = sb.injectFault({ path: identity, status: 500, times: Infinity });
    expect((await getJson(sb.url, identity, token)).status).toBe(500);
    sb.removeFault(id);
    expect((await getJson(sb.url, identity, token)).status).toBe(200);
    sb.injectFault({ status: 500, times: Infinity });
    sb.clearFaults();
    expect((await getJson(sb.url, identity, token)).status).toBe(200);
  });

  it('logs every service request with its status and token kind, and resets', async () => {
    const patron = sb.issueTokens(sb.createUser({ fullName: 'P' }).id, ['identity']);
    await getJson(sb.url, `${identity}?fields[user]=full_name`, token);
    await getJson(sb.url, identity, patron.accessToken);
    await getJson(sb.url, identity);
    await getJson(sb.url, identity, 'bogus');
    await getJson(sb.url, '/__sandbox/deliveries');
    expect(sb.requests().map((r) => [r.status, r.tokenKind])).toEqual([
      [200, 'creator'],
      [200, 'patron'],
      [401, 'none'],
      [401, 'invalid'],
    ]);
    expect(sb.requests()[0]).toMatchObject({ method: 'GET', path: identity, query: { 'fields[user]': 'full_name' }, faultId: null });
    sb.resetRequests();
    expect(sb.requests()).toEqual([]);
  });
});

describe('membership-service sandbox: HTTP control API', () => {
  let sb: MembershipServiceSandbox;
  beforeAll(async () => {
    sb = await createMembershipServiceSandbox();
  });
  afterAll(() => sb.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sb.url}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('creates users, tiers and memberships, lists requests and deliveries, injects faults', async () => {
    const index = await call('GET', '/__sandbox');
    expect(index.body.campaignId).toBe(sb.campaignId);
    const user = await call('POST', '/__sandbox/users', { fullName: 'Web Person', discordUserId: '323456789012345678' });
    expect(user.status).toBe(201);
    const tier = await call('POST', `/__sandbox/campaigns/${sb.campaignId}/tiers`, {
      title: 'Gold',
      amountCents: 500,
      chatRoleIds: { discord: ['123456789012345678'] },
    });
    expect(tier.status).toBe(201);
    const member = await call('PUT', '/__sandbox/memberships', {
      userId: user.body.id,
      tierIds: [tier.body.id],
      patronStatus: 'active_patron',
    });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({ userId: user.body.id, tierIds: [tier.body.id], patronStatus: 'active_patron' });
    expect((await call('PUT', '/__sandbox/memberships', { userId: user.body.id, tierIds: ['nope'] })).status).toBe(400);
    expect((await call('PUT', '/__sandbox/memberships', { userId: user.body.id, bogus: 1 })).status).toBe(400);

    const fault = await call('POST', '/__sandbox/faults', { pathPattern: '^/api/oauth2/v2/identity$', status: 503 });
    expect(fault.status).toBe(201);
    const res = await fetch(`${sb.url}/api/oauth2/v2/identity`, { headers: { authorization: `Bearer ${sb.creatorTokens.accessToken}` } });
    expect(res.status).toBe(503);
    const requests = await fetch(`${sb.url}/__sandbox/requests`).then((r) => r.json() as Promise<Array<{ status: number }>>);
    expect(requests.map((r) => r.status)).toEqual([503]);
    expect((await call('GET', '/__sandbox/deliveries')).status).toBe(200);
    expect((await call('DELETE', `/__sandbox/members/${String(member.body.id)}`)).status).toBe(200);
    expect(sb.getMember(String(member.body.id))?.deleted).toBe(true);
  });
});
