import { createManualClock } from '@tierlink/sandbox';
import type { OAuthTokens } from '../../../../src/edges/outbound/patreon';
import { PatreonApiError, createCreatorSession } from '../../../../src/edges/outbound/patreon';
import { DAY, MINUTE } from '../../../../src/shared/clock';
import { silentLogger } from '../../../../src/shared/logger';
import type { Harness } from './harness';
import { memoryTokenStore, startHarness } from './harness';

const TOKEN = '/api/oauth2/token';

describe('creator session against the sandbox', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
    h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
  });
  afterEach(() => h.close());

  const tokenRequests = () => h.sb.requests().filter((r) => r.path === TOKEN);

  it('does not retry a failing refresh within 10 minutes, and fails fast meanwhile', async () => {
    const tokens = h.store.current();
    if (!tokens) throw new Error('no tokens');
    h.sb.expireAccessToken(tokens.accessToken);
    h.sb.revokeRefreshToken(tokens.refreshToken);

    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'refresh_failed' });
    expect(tokenRequests()).toHaveLength(1);
    expect(tokenRequests()[0]?.status).toBe(400);

    h.sb.resetRequests();
    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'refresh_cooldown', name: 'PatreonApiError[refresh_cooldown]' });
    h.clock.advance(9 * MINUTE + 59_000);
    await expect(h.client.getMember('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ kind: 'refresh_cooldown' });
    await expect(h.client.listWebhooks()).rejects.toBeInstanceOf(PatreonApiError);
    expect(h.sb.requests()).toEqual([]);
    expect((await h.session.status()).cooldownUntil).not.toBeNull();

    h.clock.advance(2_000);
    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'refresh_failed' });
    expect(h.sb.requests().map((r) => `${r.path} ${r.status}`)).toEqual([`/api/oauth2/v2/campaigns 401`, `${TOKEN} 400`]);
  });

  it('ends the cooldown when the store holds new tokens (the creator reconnected)', async () => {
    const tokens = h.store.current();
    if (!tokens) throw new Error('no tokens');
    h.sb.expireAccessToken(tokens.accessToken);
    h.sb.revokeRefreshToken(tokens.refreshToken);
    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'refresh_failed' });
    const fresh = h.sb.issueTokens(h.sb.creatorUserId, tokens.scopes);
    h.store.set({
      accessToken: fresh.accessToken,
      refreshToken: fresh.refreshToken,
      expiresAt: new Date(h.clock.now().getTime() + DAY),
      scopes: fresh.scopes,
    });
    const campaigns = await h.client.getCampaigns();
    expect(campaigns.map((c) => c.campaign.id)).toEqual([h.sb.campaignId]);
  });

  it('shares one refresh among concurrent 401s (single flight) and retries each call once', async () => {
    const tokens = h.store.current();
    if (!tokens) throw new Error('no tokens');
    h.sb.expireAccessToken(tokens.accessToken);
    const results = await Promise.all([
      h.client.getCampaigns(),
      h.client.getCampaign(h.sb.campaignId),
      h.client.listWebhooks(),
      h.client.getCampaigns(),
    ]);
    expect(results).toHaveLength(4);
    expect(tokenRequests()).toHaveLength(1);
    expect(h.store.saves).toHaveLength(1);
  });

  it('refreshes before calling when the stored expiry has passed (by the injected clock)', async () => {
    h.clock.advance(32 * DAY);
    await h.client.getCampaigns();
    expect(h.sb.requests().map((r) => `${r.path} ${r.status}`)).toEqual([`${TOKEN} 200`, `/api/oauth2/v2/campaigns 200`]);
  });
});

describe('creator session (unit)', () => {
  const clock = createManualClock();
  const pair = (n: number): OAuthTokens => ({
    accessToken: `a${n}`,
    refreshToken: `r${n}`,
    expiresAt: new Date(clock.now().getTime() + DAY),
    scopes: [],
  });
  const unauthorized = () => new PatreonApiError({ kind: 'unauthorized', status: 401, method: 'GET', path: '/x' });

  it('fails with not_connected when no tokens are stored', async () => {
    const session = createCreatorSession({ store: memoryTokenStore(null), refresh: async () => pair(2), clock, logger: silentLogger });
    await expect(session.withAccessToken(async () => 1)).rejects.toMatchObject({ kind: 'not_connected' });
  });

  it('does not use rotated tokens it could not save, and saves them on the next call', async () => {
    const store = memoryTokenStore(pair(1));
    let failSave = true;
    const save = store.save.bind(store);
    store.save = async (t) => {
      if (failSave) throw new Error('disk full');
      await save(t);
    };
    const session = createCreatorSession({ store, refresh: async () => pair(2), clock, logger: silentLogger });
    const used: string[] = [];
    const call = async (token: string) => {
      used.push(token);
      if (token === 'a1') throw unauthorized();
      return token;
    };
    await expect(session.withAccessToken(call)).rejects.toMatchObject({ kind: 'token_store_failed' });
    expect(used).toEqual(['a1']);
    failSave = false;
    await expect(session.withAccessToken(call)).resolves.toBe('a2');
    expect(store.current()?.refreshToken).toBe('r2');
  });

  it('uses tokens another instance stored instead of refreshing again', async () => {
    const store = memoryTokenStore(pair(1));
    let refreshes = 0;
    const session = createCreatorSession({
      store,
      refresh: async () => {
        refreshes += 1;
        return pair(9);
      },
      clock,
      logger: silentLogger,
    });
    await session.withAccessToken(async (t) => t);
    store.set(pair(5));
    const result = await session.withAccessToken(async (t) => {
      if (t === 'a1') throw unauthorized();
      return t;
    });
    expect(result).toBe('a5');
    expect(refreshes).toBe(0);
  });
});

describe('creator session: a refresh failure recorded by the store', () => {
  it('keeps the cooldown across a restart (refreshFailedAt from the store)', async () => {
    const clock = createManualClock();
    const tokens: OAuthTokens = { accessToken: 'a1', refreshToken: 'r1', expiresAt: new Date(clock.now().getTime() + DAY), scopes: [] };
    const store = memoryTokenStore(tokens);
    store.load = async () => ({ ...tokens, refreshFailedAt: new Date(clock.now().getTime() - MINUTE) });
    let calls = 0;
    const session = createCreatorSession({ store, refresh: async () => tokens, clock, logger: silentLogger });
    await expect(
      session.withAccessToken(async () => {
        calls += 1;
      }),
    ).rejects.toMatchObject({ kind: 'refresh_cooldown' });
    expect(calls).toBe(0);
    clock.advance(10 * MINUTE);
    await session.withAccessToken(async () => {
      calls += 1;
    });
    expect(calls).toBe(1);
  });
});
