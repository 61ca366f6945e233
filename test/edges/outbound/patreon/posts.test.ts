import { PatreonApiError } from '../../../../src/edges/outbound/patreon/errors';
import { UNPACED_PATREON, raisedPatreon } from '../../../support/raised-limits';
import type { Resource } from '../../../../src/edges/outbound/patreon/json-api';
import { parsePost, webUrl } from '../../../../src/edges/outbound/patreon/posts';
import { type Harness, startHarness } from './harness';

/** A post as both dialects document it (the same attribute names in Patreon's and the spec's). */
const post = (attributes: Record<string, unknown>): Resource => ({
  id: '77',
  type: 'post',
  attributes: {
    title: 'Chapter 12',
    url: 'https://www.patreon.com/posts/chapter-12-77',
    is_public: false,
    tiers: ['5', 6],
    published_at: '2026-11-24T18:00:00.000+00:00',
    ...attributes,
  },
  relationships: { campaign: { data: { type: 'campaign', id: '9' } } },
});

test('a post: title, address, audience (tier ids as strings), publication date and campaign', () => {
  expect(parsePost(post({}))).toEqual({
    id: '77',
    campaignId: '9',
    title: 'Chapter 12',
    url: 'https://www.patreon.com/posts/chapter-12-77',
    isPublic: false,
    tierIds: ['5', '6'],
    publishedAt: expect.stringMatching(/^2026-11-24T18:00:00/),
  });
});

test('a path is resolved against the service’s address; anything but a web address is not linked', () => {
  expect(parsePost(post({ url: '/posts/chapter-12-77' }), 'post', 'https://www.patreon.com').url).toBe(
    'https://www.patreon.com/posts/chapter-12-77',
  );
  expect(parsePost(post({ url: '/posts/chapter-12-77' })).url).toBeNull();
  expect(parsePost(post({ url: 'javascript:alert(1)' }), 'post', 'https://www.patreon.com').url).toBeNull();
  expect(webUrl(null)).toBeNull();
});

test('the nullable attributes may be null: no tiers is an empty list', () => {
  expect(parsePost(post({ tiers: null, is_public: null, title: null, published_at: null }))).toMatchObject({
    tierIds: [],
    isPublic: null,
    title: null,
    publishedAt: null,
  });
});

test('a missing attribute or a wrong type is an invalid response, not a guess', () => {
  const missing = post({});
  delete (missing.attributes as Record<string, unknown>).tiers;
  for (const bad of [missing, post({ tiers: 'gold' }), post({ is_public: 'yes' })]) {
    let thrown: unknown;
    try {
      parsePost(bad, 'GET /posts/77');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PatreonApiError);
    expect(thrown).toMatchObject({ kind: 'invalid_response' });
  }
});

describe.each(['spec', 'patreon'] as const)('the posts endpoints in the %s dialect (against the stand-in)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { dialect, ...raisedPatreon('the posts checks share one harness and are about the answers, not the pace') },
      budgetLimits: UNPACED_PATREON,
    });
  });
  afterAll(() => h.close());

  test('a campaign’s posts and one post read with their title, address, audience and date; an unknown post is null', async () => {
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 }).id;
    const locked = h.sb.publishPost(h.sb.campaignId, { title: 'For Gold', tierIds: [tier] }, { deliver: false }).id;
    const open = h.sb.publishPost(h.sb.campaignId, { title: 'For everyone', isPublic: true }, { deliver: false }).id;
    const { posts } = await h.client.listPosts(h.sb.campaignId);
    expect(posts.map((p) => p.id).sort()).toEqual([locked, open].sort());
    // The campaign relationship comes only with include=campaign, which Tierlink does not ask for:
    // the campaign is the one whose webhook or listing named the post.
    expect(await h.client.getPost(locked)).toMatchObject({
      id: locked,
      title: 'For Gold',
      url: `${h.sb.url}/posts/${locked}`,
      isPublic: false,
      tierIds: [tier],
      publishedAt: expect.any(String),
    });
    expect(posts.find((p) => p.id === open)).toMatchObject({ isPublic: true, tierIds: [] });
    expect(await h.client.getPost('999999')).toBeNull();
  });
});

describe.each(['oldest-first', 'newest-first'] as const)('a long posts list in Patreon’s dialect, %s', (postsOrder) => {
  let h: Harness;
  let ids: string[];
  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        dialect: 'patreon',
        postsOrder,
        ...raisedPatreon('the paging checks share one harness and are about the answers, not the pace'),
      },
      budgetLimits: UNPACED_PATREON,
    });
    ids = Array.from({ length: 45 }, (_, i) => h.sb.publishPost(h.sb.campaignId, { title: `Post ${i + 1}` }, { deliver: false }).id);
  });
  afterAll(() => h.close());
  const listed = postsOrder === 'oldest-first' ? () => ids : () => [...ids].reverse();

  test('pages of 20: a stretch stops where asked and says where the next one reads on from', async () => {
    const first = await h.client.listPosts(h.sb.campaignId, { pages: 1 });
    expect(first.posts.map((p) => p.id)).toEqual(listed().slice(0, 20));
    expect(first.resume).toEqual(expect.any(String));
    const on = await h.client.listPosts(h.sb.campaignId, { from: first.resume });
    expect(on.posts.map((p) => p.id)).toEqual(listed().slice(20));
    // The end was reached: the cursor kept is the last page's own, so reading from it finds what is added there.
    const last = await h.client.listPosts(h.sb.campaignId, { from: on.resume });
    expect(last.posts.map((p) => p.id)).toEqual(listed().slice(40));
    expect(last.resume).toBe(on.resume);
  });

  test('the whole list in one stretch; a list of one page keeps no cursor', async () => {
    const all = await h.client.listPosts(h.sb.campaignId);
    expect(all.posts.map((p) => p.id)).toEqual(listed());
    expect(all.resume).toEqual(expect.any(String));
    const other = h.sb.createCampaign().id;
    expect(await h.client.listPosts(other)).toEqual({ posts: [], resume: null });
  });
});
