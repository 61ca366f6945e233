import { PatreonApiError } from '../../../src/edges/patreon/errors';
import type { Resource } from '../../../src/edges/patreon/json-api';
import { parsePost, webUrl } from '../../../src/edges/patreon/posts';

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
