import { type ManualClock, createManualClock } from '@tierlink/sandbox';
import type { BudgetLimits, RequestBudget, RequestPriority, ServiceDialect } from '../../../../src/edges/outbound/patreon';
import { PATREON_PUBLISHED_LIMITS, createRequestBudget } from '../../../../src/edges/outbound/patreon';
import { COUNT_MARGIN_MS } from '../../../../src/edges/outbound/patreon/request-budget';

/** A window of 60 s as counted: a request leaves it this long after its answer (here, on a manual clock, its count). */
const MINUTE = 60_000 + COUNT_MARGIN_MS;
import type { Harness } from './harness';
import { listAll, startHarness } from './harness';

/**
 * A budget on a manual clock whose sleeps end only when the test lets time pass ({@link all}):
 * the earliest sleep ends first, once every request that can go has gone. Waits are read off the
 * clock, never timed.
 */
function budgetOn(dialect: ServiceDialect, limits?: Partial<Record<ServiceDialect, BudgetLimits | null>>) {
  const clock: ManualClock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const start = clock.now().getTime();
  const sleeps: number[] = [];
  const pending: Array<{ until: number; wake: () => void }> = [];
  const budget: RequestBudget = createRequestBudget({
    clock,
    // An aborted sleep ends at once, without time passing.
    sleep: (ms, signal) =>
      new Promise<void>((wake) => {
        sleeps.push(ms);
        const entry = { until: clock.now().getTime() + ms, wake };
        pending.push(entry);
        signal?.addEventListener('abort', () => {
          pending.splice(pending.indexOf(entry), 1);
          sleeps.splice(sleeps.lastIndexOf(ms), 1);
          wake();
        });
      }),
    dialect: { current: async () => dialect },
    ...(limits ? { limits } : {}),
  });
  /** Acquires, is answered at once, and resolves with the ms (since the start) at which the request went. */
  const go = (tokenKey: string | null, priority: RequestPriority): Promise<number> =>
    budget.acquire({ tokenKey, priority }).then((counted) => {
      counted.answered();
      return clock.now().getTime() - start;
    });
  /** Lets time pass, sleep by sleep, until every promise has settled. */
  const all = async <T>(promises: ReadonlyArray<Promise<T>>): Promise<T[]> => {
    let done = false;
    const result = Promise.all(promises).finally(() => {
      done = true;
    });
    for (let turns = 0; !done; turns++) {
      if (turns > 1_000) throw new Error('the budget never released its waiters');
      await new Promise((resolve) => setImmediate(resolve));
      if (done || pending.length === 0) continue;
      pending.sort((a, b) => a.until - b.until);
      const next = pending.shift();
      if (!next) continue;
      clock.set(new Date(Math.max(next.until, clock.now().getTime())));
      next.wake();
    }
    return result;
  };
  return { clock, budget, sleeps, go, all };
}

const small = (perToken: number, reserve: number, perClient: BudgetLimits['perClient'] = null): BudgetLimits => ({
  perClient,
  perToken: { requests: perToken, windowMs: 60_000 },
  interactiveReserve: reserve,
});

describe('request budget (mocked clock)', () => {
  it("Patreon's published limits by default: 100 per 2 s per client, 100 per minute per token, a tenth kept for interactive requests", () => {
    expect(PATREON_PUBLISHED_LIMITS).toEqual({
      perClient: { requests: 100, windowMs: 2_000 },
      perToken: { requests: 100, windowMs: 60_000 },
      interactiveReserve: 10,
    });
  });

  it('paces a token to its window: bulk requests leave the reserve to interactive ones', async () => {
    const b = budgetOn('patreon', { patreon: small(5, 2) });
    const bulk = await b.all([0, 1, 2, 3, 4].map(() => b.go('creator:1', 'bulk')));
    // Three fit (5 − 2 reserved); the fourth and fifth wait until the first three leave the minute.
    expect(bulk).toEqual([0, 0, 0, MINUTE, MINUTE]);
  });

  it('an interactive request goes at once on the reserve while bulk requests wait', async () => {
    const b = budgetOn('patreon', { patreon: small(5, 2) });
    const order: string[] = [];
    const bulk = [0, 1, 2, 3].map((i) => b.go('creator:1', 'bulk').then((at) => order.push(`bulk ${i} @${at}`)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.sleeps).toEqual([MINUTE]);
    const interactive = b.go('creator:1', 'interactive').then((at) => order.push(`interactive @${at}`));
    await b.all([...bulk, interactive]);
    expect(order).toEqual(['bulk 0 @0', 'bulk 1 @0', 'bulk 2 @0', 'interactive @0', `bulk 3 @${MINUTE}`]);
  });

  it('when a slot frees, waiting interactive requests go before bulk ones that came earlier', async () => {
    const b = budgetOn('patreon', { patreon: small(2, 0) });
    await b.all([b.go('creator:1', 'interactive'), b.go('creator:1', 'interactive')]);
    const order: string[] = [];
    const waits = [
      b.go('creator:1', 'bulk').then((at) => order.push(`bulk A @${at}`)),
      b.go('creator:1', 'bulk').then((at) => order.push(`bulk B @${at}`)),
      b.go('creator:1', 'interactive').then((at) => order.push(`interactive @${at}`)),
    ];
    await b.all(waits);
    expect(order).toEqual([`interactive @${MINUTE}`, `bulk A @${MINUTE}`, `bulk B @${2 * MINUTE}`]);
  });

  it('three lanes: a role-changing read goes before a confirmation, which goes before the sync pages; only the first uses the reserve', async () => {
    const b = budgetOn('patreon', { patreon: small(2, 1) });
    await b.all([b.go('creator:1', 'interactive'), b.go('creator:1', 'interactive')]);
    const order: string[] = [];
    const waits = [
      b.go('creator:1', 'bulk').then((at) => order.push(`bulk @${at}`)),
      b.go('creator:1', 'confirm').then((at) => order.push(`confirm @${at}`)),
      b.go('creator:1', 'interactive').then((at) => order.push(`interactive @${at}`)),
    ];
    await b.all(waits);
    // One request a minute may leave the reserve: the interactive read goes first (on the reserve
    // too), the confirmation takes the next free slot, the page the one after, though it came first.
    expect(order).toEqual([`interactive @${MINUTE}`, `confirm @${2 * MINUTE}`, `bulk @${3 * MINUTE}`]);
  });

  it("another token's requests do not wait for a full token; the client's window holds them all", async () => {
    const b = budgetOn('patreon', { patreon: small(2, 0, { requests: 3, windowMs: 2_000 }) });
    expect(await b.all([b.go('a', 'interactive'), b.go('a', 'interactive'), b.go('b', 'interactive')])).toEqual([0, 0, 0]);
    expect(await b.all([b.go('c', 'interactive'), b.go(null, 'interactive')])).toEqual([2_000 + COUNT_MARGIN_MS, 2_000 + COUNT_MARGIN_MS]);
    expect(await b.all([b.go('a', 'interactive')])).toEqual([MINUTE]);
  });

  it("the spec's dialect is paced as Patreon's (its names are Patreon's API): 90 bulk requests a minute per token", async () => {
    const b = budgetOn('spec');
    const times = await b.all(Array.from({ length: 200 }, () => b.go('creator:1', 'bulk')));
    expect(times.filter((t) => t === 0)).toHaveLength(90);
    expect(times.filter((t) => t === MINUTE)).toHaveLength(90);
    expect(times.filter((t) => t === 2 * MINUTE)).toHaveLength(20);
  });
});

describe("the client's budget against the stand-in's rate limits (Patreon's dialect)", () => {
  let h: Harness;
  afterEach(() => h.close());

  it('150 re-reads one after another: 100 in the first minute, the rest when it ends; the service refuses none', async () => {
    h = await startHarness({ sandbox: { dialect: 'patreon' }, storedDialect: 'patreon', sleepAdvancesClock: true });
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
    const member = h.sb.setMembership(h.sb.createUser({ fullName: 'Pat' }).id, h.sb.campaignId, { tierIds: [tier.id] }, { deliver: false });
    const started = h.clock.now().getTime();
    for (let i = 0; i < 150; i++) expect((await h.client.getMember(member.id))?.member.id).toBe(member.id);
    expect(h.sb.requests().map((r) => r.status)).toEqual(Array.from({ length: 150 }, () => 200));
    const times = h.sb.requests().map((r) => Date.parse(r.at) - started);
    expect(times.slice(0, 100)).toEqual(Array.from({ length: 100 }, () => 0));
    expect(new Set(times.slice(100))).toEqual(new Set([MINUTE]));
    expect(h.sleeps).toEqual([MINUTE]);
  });

  it('webhook re-reads during a sync go at once on the reserve while the pages wait', async () => {
    const wakes: Array<() => void> = [];
    let clock: ManualClock | null = null;
    h = await startHarness({
      sandbox: {
        dialect: 'patreon',
        maxPageSize: 10,
        rateLimits: { perClient: { requests: 100, windowMs: 2_000 }, perToken: { requests: 6, windowMs: 60_000 } },
      },
      storedDialect: 'patreon',
      budgetLimits: { patreon: small(6, 2, { requests: 100, windowMs: 2_000 }) },
      // Time passes only when the test says so, once the requests it expects have been answered.
      sleep: (ms, signal) =>
        new Promise<void>((wake) => {
          const entry = () => (clock?.advance(ms), wake());
          wakes.push(entry);
          // Aborted (a request was answered, the wait may be shorter): ends at once, without time passing.
          signal?.addEventListener('abort', () => {
            wakes.splice(wakes.indexOf(entry), 1);
            wake();
          });
        }),
    });
    clock = h.clock;
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
    const member = h.sb.setMembership(h.sb.createUser({ fullName: 'Pat' }).id, h.sb.campaignId, { tierIds: [tier.id] }, { deliver: false });
    h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 99, seed: 2 });
    const started = h.clock.now().getTime();
    const pageTimes = () =>
      h.sb
        .requests()
        .filter((r) => r.path.endsWith('/members'))
        .map((r) => Date.parse(r.at) - started);
    const waiting = async (n: number) => {
      for (let i = 0; wakes.length < n; i++) {
        if (i > 2_000) throw new Error('the sync never waited');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    const sync = listAll(h.client, h.sb.campaignId);
    await waiting(1);
    expect(pageTimes()).toEqual([0, 0, 0, 0]); // 6 − 2 kept for interactive requests
    const reReads = await Promise.all([h.client.getMember(member.id), h.client.getMember(member.id)]);
    expect(reReads.map((d) => d?.member.id)).toEqual([member.id, member.id]);
    // Answered while the sync still waits (its wait looked at again once they were answered).
    await waiting(1);
    expect(wakes).toHaveLength(1);
    expect(pageTimes()).toEqual([0, 0, 0, 0]);
    wakes.shift()?.();
    await waiting(1);
    wakes.shift()?.();
    const { pages } = await sync;
    expect(pages).toBe(10);
    expect(pageTimes()).toEqual([0, 0, 0, 0, MINUTE, MINUTE, MINUTE, MINUTE, 2 * MINUTE, 2 * MINUTE]);
    expect(h.sb.requests().every((r) => r.status === 200)).toBe(true);
  });

  it('a 429 that comes anyway is still waited out as Retry-After says', async () => {
    h = await startHarness({
      sandbox: {
        dialect: 'patreon',
        rateLimits: { perClient: { requests: 100, windowMs: 2_000 }, perToken: { requests: 2, windowMs: 60_000 } },
      },
      storedDialect: 'patreon',
      sleepAdvancesClock: true,
    });
    for (let i = 0; i < 3; i++) expect(await h.client.getCampaigns()).toHaveLength(1);
    expect(h.sb.requests().map((r) => r.status)).toEqual([200, 200, 429, 200]);
    expect(h.sleeps).toContain(60_000);
  });
});
