import { addressKey, createAddressLimiter, createLogSampler } from '../../../../src/edges/inbound/web/rate-limit';

/** The per-address budgets and the log sampler, on an injected clock. */

test('a budget per address and window: the request past it is refused with the seconds left, then the window reopens', () => {
  let now = 0;
  const limiter = createAddressLimiter({ limit: 3, windowMs: 60_000 }, { now: () => now });
  expect([1, 2, 3].map(() => limiter.take('203.0.113.1').ok)).toEqual([true, true, true]);
  now = 15_000;
  expect(limiter.take('203.0.113.1')).toEqual({ ok: false, retryAfterSeconds: 45, first: true });
  expect(limiter.take('203.0.113.1')).toMatchObject({ ok: false, first: false });
  expect(limiter.take('203.0.113.2').ok).toBe(true);
  now = 60_000;
  expect(limiter.take('203.0.113.1').ok).toBe(true);
});

test('failures counted with hit() refuse the next check; check() itself counts nothing', () => {
  const limiter = createAddressLimiter({ limit: 2, windowMs: 60_000 }, { now: () => 0 });
  expect(limiter.check('198.51.100.1').ok).toBe(true);
  expect(limiter.check('198.51.100.1').ok).toBe(true);
  limiter.hit('198.51.100.1');
  limiter.hit('198.51.100.1');
  expect(limiter.check('198.51.100.1')).toMatchObject({ ok: false, first: true });
});

test('memory is bounded: past the address cap, new addresses share one window', () => {
  let now = 0;
  const limiter = createAddressLimiter({ limit: 5, windowMs: 60_000 }, { now: () => now, maxAddresses: 100 });
  for (let i = 0; i < 100; i++) limiter.take(`10.0.${Math.floor(i / 250)}.${i % 250}`);
  expect(limiter.size).toBe(100);
  const crowd = Array.from({ length: 10 }, (_, i) => limiter.take(`10.1.0.${i}`).ok);
  expect(crowd).toEqual([true, true, true, true, true, false, false, false, false, false]);
  expect(limiter.size).toBe(101); // the 100 addresses and the one shared window
  for (let i = 0; i < 1000; i++) limiter.take(`10.3.${Math.floor(i / 250)}.${i % 250}`);
  expect(limiter.size).toBe(101);
  now = 60_000; // the old windows are over: room again
  expect(limiter.take('10.2.0.1').ok).toBe(true);
  expect(limiter.size).toBeLessThanOrEqual(101);
});

test('addresses: IPv4 as it is (also IPv4-mapped), IPv6 by its /64', () => {
  expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
  expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
  expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
  expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(addressKey('::1')).toBe('0:0:0:0::/64');
});

test('the log sampler lets a number of lines a window through and says how many it left out', () => {
  let now = 0;
  const sampler = createLogSampler(2, 60_000, () => now);
  expect([sampler.take(), sampler.take(), sampler.take(), sampler.take()]).toEqual([{ suppressed: 0 }, { suppressed: 0 }, null, null]);
  now = 60_000;
  expect(sampler.take()).toEqual({ suppressed: 2 });
});
