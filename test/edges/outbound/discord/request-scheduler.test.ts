import pino from 'pino';
import { createManualClock } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createDiscordAccess, createMemoryBudgetStore } from '../../../../src/edges/outbound/discord';
import { createRequestScheduler } from '../../../../src/edges/outbound/discord/request-scheduler';

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
    raisedLimits:
      'member-role windows of 2 s instead of 10 s keep the tests short; Tierlink learns whatever the headers say, and the tests change the bucket at will',
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
  // The earlier tests' requests count in Discord's current second, and this process does not know them: a second later they do not.
  await new Promise((r) => setTimeout(r, 1_100));
  // One REST client (one process) for all of them, as in production: it counts the global limit whole (50 in any 1,050 ms).
  const { access } = guilds[0]!;
  const results = await Promise.all(
    guilds.flatMap(({ guildId, gold, ids }) => ids.map((u) => access.writer.addRole(guildId, u, gold, 'bulk', { lane: 'bulk' }))),
  );
  expect(results.every((r) => r.ok)).toBe(true);
  expect(sandbox.rateLimitHits()).toEqual([]);
  expect(access.rest.stats().tooManyRequests).toBe(0);
});

/** A debug logger whose lines the test reads. */
function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines };
}

test('a bucket that changes size and window mid-run is followed in both directions from the next answer: no 429, no wait but the old window’s rest', async () => {
  const { logger, lines } = memoryLogger();
  const { guildId, gold, ids } = setup(60);
  // A new process: the earlier tests' requests in Discord's current second are not its to know.
  await new Promise((r) => setTimeout(r, 1_100));
  const access = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    clock: createManualClock(),
    logger,
  });
  const key = `member-role:${guildId}`;
  const waitsFor = () => lines.filter((l) => l.msg === 'discord request waits for its bucket' && l.bucket === key);
  const grant = (members: readonly string[], reason: string) =>
    Promise.all(members.map((u) => access.writer.addRole(guildId, u, gold, reason, { lane: 'interactive' })));
  try {
    // 10 per 2 s, learned; the window is spent.
    expect((await grant(ids.slice(0, 10), 'small')).every((r) => r.ok)).toBe(true);
    // Discord grows the bucket: 100 per second. The old window's rest is waited once; the next answer teaches the rest.
    sandbox.setRateLimit({ route: 'member-role', limit: 100, windowMs: 1_000 });
    const before = waitsFor().length;
    expect((await grant(ids.slice(10, 40), 'grown')).every((r) => r.ok)).toBe(true);
    const grownWaits = waitsFor().slice(before);
    expect(grownWaits.length).toBeLessThanOrEqual(1);
    for (const wait of grownWaits) expect(wait).toMatchObject({ lane: 'interactive', waitMs: expect.any(Number) });
    // Discord shrinks it, window longer: 5 per 1.5 s. Followed from the first answer, no request refused by Discord.
    sandbox.setRateLimit({ route: 'member-role', limit: 5, windowMs: 1_500 });
    const shrunk = await grant(ids.slice(40, 52), 'shrunk');
    expect(shrunk.every((r) => r.ok)).toBe(true);
    // 12 requests in windows of 5: two waits for a window at least.
    expect(waitsFor().length - before - grownWaits.length).toBeGreaterThanOrEqual(2);
    expect(sandbox.rateLimitHits()).toEqual([]);
    expect(grantsIn(guildId)).toHaveLength(52);
  } finally {
    sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 2_000 });
  }
});

test('at shutdown a request waiting for its bucket ends with an error, and later ones at once', async () => {
  const { guildId, gold, ids, access } = setup(12);
  // 10 go out; the 11th waits for the window.
  const granted = Promise.allSettled(ids.slice(0, 11).map((u) => access.writer.addRole(guildId, u, gold, 'waiting')));
  await until(() => grantsIn(guildId).length >= 10, 'the window spent');
  access.scheduler.close();
  const results = await granted;
  expect(results.filter((r) => r.status === 'fulfilled' && r.value.ok)).toHaveLength(10);
  expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([
    expect.stringContaining('the Discord client is stopping'),
  ]);
  await expect(access.writer.addRole(guildId, ids[11]!, gold, 'after')).rejects.toThrow('the Discord client is stopping');
  expect(grantsIn(guildId)).toHaveLength(10);
});

test('when the global limit is spent by bulk requests, an interactive request of the same process takes the next room before every waiting bulk one', async () => {
  const scheduler = createRequestScheduler({
    store: createMemoryBudgetStore(() => performance.now()),
    // As one process counts the global limit, here 2 in any 300 ms (wide enough that a loaded
    // machine's late timers cannot reorder what the test asks about).
    global: { limit: 2, windowMs: 300, counting: 'sliding' },
  });
  const sent: string[] = [];
  const headers = new Headers({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset-after': '60' });
  const send = scheduler.makeRequest(
    async (url: string, _init: { method: string }) => {
      sent.push(url);
      return { status: 200, headers };
    },
    () => '/users/@me',
  );
  await send('learn', { method: 'GET' });
  await new Promise((r) => setTimeout(r, 320));
  const bulk = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].map((name) => scheduler.inLane('bulk', () => send(name, { method: 'GET' })));
  await new Promise((r) => setTimeout(r, 10));
  const interactive = scheduler.inLane('interactive', () => send('i', { method: 'GET' }));
  await Promise.all([...bulk, interactive]);
  // The interactive request takes the first room after the two bulk ones already sent; the
  // waiting bulk requests follow in any order (none is lost).
  expect(sent.slice(1, 4)).toEqual(['b1', 'b2', 'i']);
  expect(sent.slice(4).sort()).toEqual(['b3', 'b4', 'b5', 'b6']);
});

test("instances sharing a store: a burst of role changes asks the store for the global limit about twice per window of 7, not once per request, and Discord's 50 a second holds", async () => {
  const memory = { ...createMemoryBudgetStore(() => performance.now()), shared: true };
  const globalTakes: number[] = [];
  const shared = {
    ...memory,
    async take(...args: Parameters<typeof memory.take>) {
      const result = await memory.take(...args);
      if (args[0] === 'global') globalTakes.push(result.granted);
      return result;
    },
  };
  const { guildId, gold, ids } = setup(21);
  // The earlier tests' requests count in Discord's current second, and this process does not know them: a second later they do not.
  await new Promise((r) => setTimeout(r, 1_100));
  const access = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    clock: createManualClock(),
    budget: shared,
  });
  sandbox.setRateLimit({ route: 'member-role', limit: 10_000, windowMs: 60_000 });
  try {
    const results = await Promise.all(ids.map((u) => access.writer.addRole(guildId, u, gold, 'burst')));
    expect(results.every((r) => r.ok)).toBe(true);
    const granting = globalTakes.filter((g) => g > 0);
    // 21 requests and the guild's reads in windows of 7: 4 and 3 a window (one a request before; a window that ends
    // before its lease is spent, on a loaded machine, costs a take more).
    expect(granting.reduce((n, g) => n + g, 0)).toBeGreaterThanOrEqual(21);
    expect(granting.length).toBeLessThanOrEqual(12);
    expect(Math.max(...granting)).toBe(4);
    expect(sandbox.rateLimitHits()).toEqual([]);
  } finally {
    sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 2_000 });
  }
});
