import { createJoinLinks } from '../../../src/app/joining/join-links';
import { createCampaignRepository } from '../../../src/edges/outbound/store/repositories/campaign-repository';
import { createGuildRepository } from '../../../src/edges/outbound/store/repositories/guild-repository';
import { type TestDatabase, createTestDatabase } from '../../support/test-database';

/**
 * The join page's addresses on a real database: which server a slug opens, which address a server
 * shows, and the slugs a server may not choose (another server's, or another server's campaign name).
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t.close());

const G1 = '100000000000000001';
const G2 = '100000000000000002';
const G3 = '100000000000000003';
const LONE = '100000000000000004';
const links = () =>
  createJoinLinks({
    guilds: createGuildRepository(t.database.db),
    campaigns: createCampaignRepository(t.database.db),
    publicUrl: () => 'https://tierlink.example',
  });

beforeAll(async () => {
  await t.reset();
  const campaigns = createCampaignRepository(t.database.db);
  const guilds = createGuildRepository(t.database.db);
  await campaigns.upsert({ id: '501', creatorUserId: 'c1', name: 'Fan Club', url: null, vanity: 'FanClub', patronCount: 1 });
  await campaigns.upsert({ id: '502', creatorUserId: 'c2', name: 'Shared', url: null, vanity: 'shared', patronCount: 1 });
  await guilds.bind(G1, '501');
  // One campaign serving two servers: its name leads to neither.
  await guilds.bind(G2, '502');
  await guilds.bind(G3, '502');
  await guilds.ensure(LONE);
});

test('a campaign served by one server: its Patreon name opens that server, in any case, and is the address it shows', async () => {
  const j = links();
  expect(await j.resolve('fanclub')).toBe(G1);
  expect(await j.resolve('FANCLUB')).toBe(G1);
  expect(await j.linkOf(G1)).toEqual({ slug: 'fanclub', source: 'vanity', url: 'https://tierlink.example/join/fanclub' });
});

test('a campaign served by two servers: its name opens neither, and each shows its id', async () => {
  const j = links();
  expect(await j.resolve('shared')).toBeNull();
  expect(await j.linkOf(G2)).toEqual({ slug: G2, source: 'id', url: `https://tierlink.example/join/${G2}` });
  expect(await j.resolve(G2)).toBe(G2);
  // A server that serves no campaign has no join page, even by its id.
  expect(await j.resolve(LONE)).toBeNull();
});

test('a server may not take another server’s campaign name; its own campaign’s name is fine', async () => {
  const j = links();
  const refused = await j.choose(G2, 'FanClub');
  expect(refused).toEqual({ ok: false, error: expect.stringContaining('is the Patreon name of a campaign another server serves') });
  expect(await j.resolve('fanclub')).toBe(G1);
  expect(await j.choose(G1, 'fanclub')).toMatchObject({ ok: true, value: { slug: 'fanclub', source: 'chosen' } });
});

test('a chosen slug opens its server; a second server cannot take it; clearing it goes back to the default', async () => {
  const j = links();
  expect(await j.choose(G2, 'My-Server')).toMatchObject({ ok: true, value: { slug: 'my-server', source: 'chosen' } });
  expect(await j.resolve('MY-SERVER')).toBe(G2);
  expect(await j.choose(G3, 'my-server')).toEqual({ ok: false, error: expect.stringContaining('is already another server’s join page') });
  expect(await j.linkOf(G3)).toMatchObject({ slug: G3, source: 'id' });

  expect(await j.choose(G2, null)).toMatchObject({ ok: true, value: { slug: G2, source: 'id' } });
  expect(await j.resolve('my-server')).toBeNull();
  // Free again: the other server may have it now.
  expect(await j.choose(G3, 'my-server')).toMatchObject({ ok: true, value: { slug: 'my-server' } });
});

test('malformed and reserved slugs are refused with the reason, and open nothing', async () => {
  const j = links();
  for (const bad of ['ab', 'callback', 'start', 'no spaces', 'x'.repeat(33)]) {
    const answer = await j.choose(G1, bad);
    expect(answer.ok).toBe(false);
    expect(await j.resolve(bad)).toBeNull();
  }
  expect(await j.linkOf(G1)).toMatchObject({ slug: 'fanclub' });
});
