import { createManualClock } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createDiscordAccess, createMemoryBudgetStore } from '../../../../src/edges/outbound/discord';

/**
 * Pacing and lanes against the Discord stand-in's own rate limits: its member-role bucket (10 per
 * window per guild, a fixed window opened by the first request; here 2 s instead of 10 s to keep
 * the test short) and Discord's global 50 requests per second. Tierlink is not told these numbers:
 * it learns them from the headers.
 */
let sandbox: DiscordSandbox;
beforeAll(async () => {
  sandbox = await createDiscordSandbox({
    rateLimits: { global: { limit: 50, windowMs: 1_000 }, routes: { 'member-role': { limit: 10, windowMs: 2_000 } } },
  });
});
afterAll(() => sandbox.close());

function setup(members: number) {
  const { guildId } = sandbox.createGuild({ name: 'Paced Club' });
  const gold = sandbox.createRole(guildId, { name: 'Gold', position: 1 }).id;
  const ids = Array.from({ length: members }, (_, i) => sandbox.addMember(guildId, { username: `m${i}` }).userId);
  const access = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    clock: createManualClock(),
  });
  return { guildId, gold, ids, access };
}

const grantsIn = (guildId: string) => sandbox.roleEvents().filter((e) => e.guildId === guildId && e.via === 'rest');

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_500 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
}

beforeEach(() => {
  sandbox.resetRequests();
  sandbox.clearRoleEvents();
});

test("an interactive grant during a bulk apply goes out at once from the reserve, before the bulk's next request", async () => {
  const { guildId, gold, ids, access } = setup(21);
  const [patron, ...bulkMembers] = ids;
  const bulk = Promise.all(bulkMembers.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' })));
  // The bulk lane takes 7 of the window's 10 and waits for the reserve's release.
  await until(() => grantsIn(guildId).length >= 7, 'the bulk share of the first window');
  await new Promise((r) => setTimeout(r, 50));
  expect(grantsIn(guildId)).toHaveLength(7);

  expect((await access.writer.addRole(guildId, patron!, gold, 'link')).ok).toBe(true);
  const order = grantsIn(guildId).map((e) => e.reason);
  expect(order).toEqual([...Array(7).fill('bulk'), 'link']);

  expect((await bulk).every((r) => r.ok)).toBe(true);
  expect(grantsIn(guildId)).toHaveLength(21);
  expect(sandbox.rateLimitHits()).toEqual([]);
});

test('an interactive grant that finds the window spent by the bulk lane is the first request of the next window', async () => {
  const { guildId, gold, ids, access } = setup(16);
  const [patron, ...bulkMembers] = ids;
  const bulk = Promise.all(bulkMembers.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' })));
  // Near the window's end the bulk lane spends the reserve too: the whole window is used.
  await until(() => grantsIn(guildId).length >= 10, 'the first window spent');
  const link = access.writer.addRole(guildId, patron!, gold, 'link');
  expect((await link).ok).toBe(true);
  expect(grantsIn(guildId).map((e) => e.reason)[10]).toBe('link');
  await bulk;
  expect(sandbox.rateLimitHits()).toEqual([]);
});

test('a bucket of another size is learned from its headers, not assumed: 4 per second, and no 429', async () => {
  sandbox.setRateLimit({ route: 'member-role', limit: 4, windowMs: 1_000 });
  try {
    const { guildId, gold, ids, access } = setup(13);
    const results = await Promise.all(ids.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' })));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sandbox.rateLimitHits()).toEqual([]);
    expect(grantsIn(guildId)).toHaveLength(13);
  } finally {
    sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 2_000 });
  }
});

test('a bucket that shrank: the requests held from a larger window are cut to what Discord says remains, and the reserve is kept', async () => {
  // A store shared by several processes grants a tenth of a large bucket at once (here 100 of 10,000).
  const shared = { ...createMemoryBudgetStore(() => performance.now()), shared: true };
  const { guildId, gold, ids } = setup(21);
  const access = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    clock: createManualClock(),
    budget: shared,
  });
  const [first, patron, ...bulkMembers] = ids;
  sandbox.setRateLimit({ route: 'member-role', limit: 10_000, windowMs: 60_000 });
  try {
    expect((await access.writer.addRole(guildId, first!, gold, 'large')).ok).toBe(true);
    sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 2_000 });
    sandbox.clearRoleEvents();
    const bulk = Promise.all(bulkMembers.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' })));
    // The first answer says 9 remain of 10: the bulk sends 7 of them (no more on the old lease) and leaves the reserve.
    await until(() => grantsIn(guildId).length >= 7, 'the bulk share of the first window');
    await new Promise((r) => setTimeout(r, 50));
    expect((await access.writer.addRole(guildId, patron!, gold, 'link')).ok).toBe(true);
    expect(grantsIn(guildId).map((e) => e.reason)).toEqual([...Array(7).fill('bulk'), 'link']);
    expect((await bulk).every((r) => r.ok)).toBe(true);
    expect(sandbox.rateLimitHits()).toEqual([]);
  } finally {
    sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 2_000 });
  }
});

test("Discord's global 50 requests per second is kept across guilds: 120 grants in 12 guilds, no 429", async () => {
  const guilds = Array.from({ length: 12 }, () => setup(10));
  // One REST client (one process) for all of them, as in production.
  const { access } = guilds[0]!;
  const results = await Promise.all(
    guilds.flatMap(({ guildId, gold, ids }) => ids.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' }))),
  );
  expect(results.every((r) => r.ok)).toBe(true);
  expect(sandbox.rateLimitHits()).toEqual([]);
  expect(access.rest.stats().tooManyRequests).toBe(0);
});
