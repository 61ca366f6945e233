import { memberPageSize } from '../../../../src/edges/outbound/patreon/members-iterator';
import { PatreonApiError } from '../../../../src/edges/outbound/patreon';
import { realSleep } from '../../../../src/shared/clock';
import type { Harness } from './harness';
import { listAll, startHarness } from './harness';

const MEMBERS_PATH = (campaignId: string): string => `/api/oauth2/v2/campaigns/${campaignId}/members`;

describe('listing members (members-iterator against the sandbox)', () => {
  let h: Harness;
  let tierId: string;
  let members: string[];

  beforeEach(async () => {
    h = await startHarness();
    tierId = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500, chatRoleIds: { discord: ['123456789012345678'] } }).id;
    h.sb.createTier(h.sb.campaignId, { title: 'Silver', amountCents: 300 });
    members = h.sb.generateMembers({
      campaignId: h.sb.campaignId,
      count: 5000,
      seed: 11,
      discordUserIdFor: (i) => (i % 2 === 0 ? `4${String(i).padStart(17, '0')}` : null),
    }).memberIds;
    h.sb.resetRequests();
  });
  afterEach(() => h.close());

  const memberRequests = () => h.sb.requests().filter((r) => r.path === MEMBERS_PATH(h.sb.campaignId));

  it('lists 5,000 members with include=currently_entitled_tiers,user in exactly 5 requests', async () => {
    const pages: number[] = [];
    const seen: string[] = [];
    let withDiscord = 0;
    for await (const page of h.client.listMembers(h.sb.campaignId)) {
      pages.push(page.pageNumber);
      expect(page.total).toBe(5000);
      for (const m of page.members) {
        seen.push(m.id);
        if (m.discordUserId !== null) withDiscord += 1;
        expect(m.campaignId).toBe(h.sb.campaignId);
      }
      expect(page.tiers.map((t) => t.title).sort()).toEqual(['Gold', 'Silver']);
      expect(page.users).toHaveLength(page.members.length);
    }
    expect(pages).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual(members);
    expect(withDiscord).toBe(2500);
    const requests = h.sb.requests();
    expect(requests).toHaveLength(5);
    for (const r of requests) {
      expect(r.status).toBe(200);
      expect(r.query.include).toBe('currently_entitled_tiers,user');
      // Every type read is named in fields (spec rule 4).
      expect(
        Object.keys(r.query)
          .filter((k) => k.startsWith('fields['))
          .sort(),
      ).toEqual(['fields[member]', 'fields[tier]', 'fields[user]']);
    }
  });

  it('parses members fully: status, charge, entitled tiers and the Discord id from the included user', async () => {
    const user = h.sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
    const m = h.sb.setMembership(
      user.id,
      h.sb.campaignId,
      {
        tierIds: [tierId],
        patronStatus: 'declined_patron',
        lastChargeStatus: 'Declined',
        lastChargeDate: '2026-10-30T10:00:00Z',
        pledgeRelationshipStart: '2025-01-01T00:00:00Z',
        lifetimeSupportCents: 6000,
      },
      { deliver: false },
    );
    let found;
    for await (const page of h.client.listMembers(h.sb.campaignId)) found ??= page.members.find((x) => x.id === m.id);
    // Only what decides or labels is asked for: no lifetime support (nothing reads it).
    expect(
      h.sb
        .requests()
        .find((r) => r.path.endsWith('/members'))
        ?.query['fields[member]']?.split(','),
    ).not.toContain('lifetime_support_cents');
    expect(found).toEqual({
      id: m.id,
      campaignId: h.sb.campaignId,
      userId: user.id,
      fullName: 'Pat Ron',
      hidesPledges: false,
      patronStatus: 'declined_patron',
      isFollower: false,
      // The spec dialect has neither attribute: read as false.
      isFreeTrial: false,
      isGifted: false,
      lastChargeDate: '2026-10-30T10:00:00.000Z',
      lastChargeStatus: 'Declined',
      entitledTierIds: [tierId],
      pledgeRelationshipStart: '2025-01-01T00:00:00.000Z',
      currentlyEntitledAmountCents: 500,
      discordUserId: '323456789012345678',
    });
  });

  it('yields a member with an unknown patron_status or an unexpected null as unreadable, and completes the listing', async () => {
    const [odd, nulled] = [members[10] ?? '', members[4_200] ?? ''];
    h.sb.overrideMemberAttributes(odd, { patron_status: 'paused_patron' });
    h.sb.overrideMemberAttributes(nulled, { last_charge_status: 'Chargeback', is_follower: null });
    const seen: string[] = [];
    const unreadable: Array<{ memberId: string; attribute: string }> = [];
    for await (const page of h.client.listMembers(h.sb.campaignId)) {
      seen.push(...page.members.map((m) => m.id));
      unreadable.push(...page.unreadable.map(({ memberId, attribute }) => ({ memberId, attribute })));
    }
    expect(seen).toEqual(members.filter((id) => id !== odd && id !== nulled));
    expect(unreadable).toEqual([
      { memberId: odd, attribute: 'patron_status' },
      { memberId: nulled, attribute: 'last_charge_status' },
    ]);
    expect(memberRequests()).toHaveLength(5);
  });

  it('waits out a 429 with Retry-After: 1 and completes the listing', async () => {
    h.sb.injectFault({ path: MEMBERS_PATH(h.sb.campaignId), status: 429, retryAfterSeconds: 1, afterMatching: 2 });
    const { ids } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toEqual(members);
    expect(h.sleeps).toEqual([1000]);
    expect(memberRequests().map((r) => r.status)).toEqual([200, 200, 429, 200, 200, 200]);
  });

  it('waits out a real one-second Retry-After (real sleep)', async () => {
    await h.close();
    h = await startHarness({ sleep: realSleep });
    h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
    h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 1500, seed: 1 });
    h.sb.resetRequests();
    h.sb.injectFault({ path: MEMBERS_PATH(h.sb.campaignId), status: 429, retryAfterSeconds: 1, retryAfterIn: 'body', afterMatching: 1 });
    const { ids, pages } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toHaveLength(1500);
    expect(pages).toBe(2);
    expect(memberRequests().map((r) => r.status)).toEqual([200, 429, 200]);
  });

  it('retries a 503 with back-off and then succeeds', async () => {
    h.sb.injectFault({ path: MEMBERS_PATH(h.sb.campaignId), status: 503, afterMatching: 1, times: 2 });
    const { ids } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toEqual(members);
    expect(memberRequests().map((r) => r.status)).toEqual([200, 503, 503, 200, 200, 200, 200]);
    // Full jitter with random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(h.sleeps).toEqual([250, 500]);
  });

  it('refreshes a creator token that expires mid-listing once, saves the rotated pair first, and completes', async () => {
    const original = h.store.current();
    if (!original) throw new Error('no tokens');
    let requestsAtSave = -1;
    h.store.onSave = () => {
      requestsAtSave = h.sb.requests().length;
    };
    const ids: string[] = [];
    for await (const page of h.client.listMembers(h.sb.campaignId)) {
      ids.push(...page.members.map((m) => m.id));
      if (page.pageNumber === 2) h.sb.expireAccessToken(original.accessToken);
    }
    expect(ids).toEqual(members);
    const requests = h.sb.requests();
    expect(requests.map((r) => `${r.path === '/api/oauth2/token' ? 'token' : 'members'} ${r.status}`)).toEqual([
      'members 200',
      'members 200',
      'members 401',
      'token 200',
      'members 200',
      'members 200',
      'members 200',
    ]);
    expect(h.store.saves).toHaveLength(1);
    expect(h.store.saves[0]?.refreshToken).not.toBe(original.refreshToken);
    // Saved when the token answer was in and before any request used the new access token.
    expect(requestsAtSave).toBe(4);
    // The old refresh token was rotated away.
    await expect(h.client.oauth.refreshToken(original.refreshToken)).rejects.toMatchObject({
      kind: 'bad_request',
      oauthError: 'invalid_grant',
    });
  });

  it('ends a repeating cursor in a pagination_loop error, not a loop', async () => {
    h.sb.injectRepeatCursor({ page: 3 });
    const pages: number[] = [];
    const error = await (async () => {
      for await (const page of h.client.listMembers(h.sb.campaignId)) pages.push(page.pageNumber);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatreonApiError);
    expect(error).toMatchObject({ kind: 'pagination_loop', name: 'PatreonApiError[pagination_loop]' });
    expect(pages).toEqual([1, 2]);
    expect(memberRequests()).toHaveLength(3);
  });

  it('ends a new cursor for the same page in a pagination_loop error (repeated member ids)', async () => {
    h.sb.injectRepeatCursor({ page: 2, mode: 'new-cursor' });
    const error = await listAll(h.client, h.sb.campaignId).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'pagination_loop' });
    expect(memberRequests()).toHaveLength(3);
  });

  it('never reads a failed page as an empty one: a 401 after refresh propagates', async () => {
    h.sb.injectFault({ path: MEMBERS_PATH(h.sb.campaignId), status: 401, times: 2 });
    const error = await listAll(h.client, h.sb.campaignId).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unauthorized', status: 401, name: 'PatreonApiError[401]' });
  });
});

test('the page size asked for: 1,000 members in Patreon’s dialect, 500 when pledge history is included, none in the spec’s', () => {
  expect(memberPageSize('patreon', ['currently_entitled_tiers', 'user'])).toEqual({ 'page[count]': '1000' });
  expect(memberPageSize('patreon', ['currently_entitled_tiers', 'pledge_history'])).toEqual({ 'page[count]': '500' });
  expect(memberPageSize('spec', ['pledge_history'])).toEqual({});
});
