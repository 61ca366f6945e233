import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson } from './raw-http';

const MEMBERS = (campaignId: string, cursor?: string, extra = ''): string =>
  `/api/oauth2/v2/campaigns/${campaignId}/members?fields[member]=patron_status${extra}${cursor ? `&page[cursor]=${encodeURIComponent(cursor)}` : ''}`;

describe('membership-service sandbox: cursor pagination (spec: Limits)', () => {
  let sb: MembershipServiceSandbox;
  let token: string;

  beforeEach(async () => {
    sb = await createMembershipServiceSandbox({
      rateLimits: 'none',
      raisedLimits: 'these checks list up to 100 pages in a row with one token; the claim is about paging, not the pace',
    });
    token = sb.creatorTokens.accessToken;
    sb.createTier(sb.campaignId, { title: 'Bronze', amountCents: 300 });
    sb.createTier(sb.campaignId, { title: 'Gold', amountCents: 1000 });
  });
  afterEach(() => sb.close());

  it('pages 2,500 members as 1000 + 1000 + 500, with total, next cursor and links.next until the last page', async () => {
    const generated = sb.generateMembers({ campaignId: sb.campaignId, count: 2500, seed: 7 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId), token);
    expect(p1.body.data).toHaveLength(1000);
    expect(p1.body.meta.pagination.total).toBe(2500);
    const c1 = p1.body.meta.pagination.cursors.next as string;
    expect(typeof c1).toBe('string');
    expect(p1.body.links.next).toContain('page%5Bcursor%5D=');
    const p2 = await getJson(sb.url, MEMBERS(sb.campaignId, c1), token);
    expect(p2.body.data).toHaveLength(1000);
    const p3 = await getJson(sb.url, MEMBERS(sb.campaignId, p2.body.meta.pagination.cursors.next), token);
    expect(p3.body.data).toHaveLength(500);
    expect(p3.body.meta.pagination.cursors.next).toBeUndefined();
    expect(p3.body.links).toBeUndefined();
    const ids = [...p1.body.data, ...p2.body.data, ...p3.body.data].map((m: { id: string }) => m.id);
    expect(ids).toEqual(generated.memberIds);
  });

  it('follows links.next as given', async () => {
    sb.generateMembers({ campaignId: sb.campaignId, count: 1001, seed: 1 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId), token);
    const res = await fetch(p1.body.links.next, { headers: { authorization: `Bearer ${token}` } });
    const p2 = (await res.json()) as { data: unknown[] };
    expect(p2.data).toHaveLength(1);
  });

  it('keeps the place when a member is deleted between pages', async () => {
    const { memberIds } = sb.generateMembers({ campaignId: sb.campaignId, count: 1500, seed: 3 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId), token);
    sb.deleteMember(memberIds[10] ?? '', { deliver: false });
    const p2 = await getJson(sb.url, MEMBERS(sb.campaignId, p1.body.meta.pagination.cursors.next), token);
    expect(p2.body.data.map((m: { id: string }) => m.id)).toEqual(memberIds.slice(1000));
    expect(p2.body.meta.pagination.total).toBe(1499);
  });

  it('refuses a cursor that is not one of this list (400)', async () => {
    expect((await getJson(sb.url, MEMBERS(sb.campaignId, 'garbage'), token)).status).toBe(400);
    const other = sb.createCampaign();
    sb.generateMembers({ campaignId: other.id, count: 1001, seed: 1 });
    const p1 = await getJson(sb.url, MEMBERS(other.id), token);
    expect((await getJson(sb.url, MEMBERS(sb.campaignId, p1.body.meta.pagination.cursors.next), token)).status).toBe(400);
  });

  it('pages 500 at a time when pledge_history is included', async () => {
    sb.generateMembers({ campaignId: sb.campaignId, count: 700, seed: 1 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId, undefined, '&include=pledge_history'), token);
    expect(p1.body.data).toHaveLength(500);
  });

  it('generates 100,000 members deterministically and lists all 100 pages', async () => {
    const a = sb.generateMembers({ campaignId: sb.campaignId, count: 100_000, seed: 42 });
    expect(new Set(a.memberIds).size).toBe(100_000);
    expect(a.memberIds.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
    const again = await createMembershipServiceSandbox();
    try {
      const campaign = again.campaignId;
      again.createTier(campaign, { title: 'Bronze', amountCents: 300 });
      again.createTier(campaign, { title: 'Gold', amountCents: 1000 });
      expect(again.generateMembers({ campaignId: campaign, count: 1000, seed: 42 }).memberIds).toEqual(a.memberIds.slice(0, 1000));
    } finally {
      await again.close();
    }

    const statuses = new Map<string, number>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await getJson(
        sb.url,
        `${MEMBERS(sb.campaignId, cursor)}&include=currently_entitled_tiers,user&fields[user]=social_connections`,
        token,
      );
      pages += 1;
      for (const m of page.body.data as Array<{ attributes: { patron_status: string | null } }>) {
        const key = String(m.attributes.patron_status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      cursor = page.body.meta.pagination.cursors.next;
    } while (cursor);
    expect(pages).toBe(100);
    // A realistic mix: mostly active, some declined, former and never-pledged.
    expect(statuses.get('active_patron')).toBeGreaterThan(50_000);
    expect(statuses.get('declined_patron')).toBeGreaterThan(1_000);
    expect(statuses.get('former_patron')).toBeGreaterThan(1_000);
    expect(statuses.get('null')).toBeGreaterThan(1_000);
  }, 120_000);

  it('repeatCursor same-cursor: page N answers the cursor that led to it', async () => {
    sb.generateMembers({ campaignId: sb.campaignId, count: 5000, seed: 1 });
    sb.injectRepeatCursor({ page: 3 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId), token);
    const p2 = await getJson(sb.url, MEMBERS(sb.campaignId, p1.body.meta.pagination.cursors.next), token);
    const c2 = p2.body.meta.pagination.cursors.next;
    const p3 = await getJson(sb.url, MEMBERS(sb.campaignId, c2), token);
    expect(p3.body.meta.pagination.cursors.next).toBe(c2);
  });

  it('repeatCursor new-cursor: page N answers a fresh cursor that leads to page N again', async () => {
    sb.generateMembers({ campaignId: sb.campaignId, count: 5000, seed: 1 });
    sb.injectRepeatCursor({ page: 2, mode: 'new-cursor', times: 1 });
    const p1 = await getJson(sb.url, MEMBERS(sb.campaignId), token);
    const c1 = p1.body.meta.pagination.cursors.next;
    const p2 = await getJson(sb.url, MEMBERS(sb.campaignId, c1), token);
    const fresh = p2.body.meta.pagination.cursors.next;
    expect(fresh).not.toBe(c1);
    const again = await getJson(sb.url, MEMBERS(sb.campaignId, fresh), token);
    expect(again.body.data.map((m: { id: string }) => m.id)).toEqual(p2.body.data.map((m: { id: string }) => m.id));
  });
});
