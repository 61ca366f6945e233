import { DAY, createManualClock, createShiftableClock, systemClock } from '@tierlink/sandbox';

describe('createShiftableClock', () => {
  test('follows its base clock until advanced', () => {
    const base = createManualClock(new Date('2026-11-01T12:00:00Z'));
    const clock = createShiftableClock(base);
    expect(clock.now().toISOString()).toBe('2026-11-01T12:00:00.000Z');
    base.advance(1500);
    expect(clock.now().toISOString()).toBe('2026-11-01T12:00:01.500Z');
    expect(clock.offsetMs()).toBe(0);
  });

  test('advance moves it ahead of the base, and the base keeps running underneath', () => {
    const base = createManualClock(new Date('2026-11-01T12:00:00Z'));
    const clock = createShiftableClock(base);
    clock.advance(8 * DAY);
    expect(clock.now().toISOString()).toBe('2026-11-09T12:00:00.000Z');
    base.advance(250);
    expect(clock.now().toISOString()).toBe('2026-11-09T12:00:00.250Z');
    clock.advance(DAY);
    expect(clock.offsetMs()).toBe(9 * DAY);
    expect(base.now().toISOString()).toBe('2026-11-01T12:00:00.250Z');
  });

  test('never moves backwards', () => {
    const clock = createShiftableClock(createManualClock());
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => clock.advance(bad)).toThrow(RangeError);
    clock.advance(0);
    expect(clock.offsetMs()).toBe(0);
  });

  test('runs on the system clock by default', () => {
    const clock = createShiftableClock();
    clock.advance(DAY);
    const ahead = clock.now().getTime() - systemClock.now().getTime();
    expect(ahead).toBeGreaterThan(DAY - 60_000);
    expect(ahead).toBeLessThanOrEqual(DAY);
  });
});
