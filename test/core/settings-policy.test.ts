import { DEFAULT_SETTINGS } from '../../src/core/planner/settings';
import { policyChanges, weakenings } from '../../src/core/settings-policy';
import type { GuildSettings } from '../../src/core/planner/types';

const base: GuildSettings = { ...DEFAULT_SETTINGS };
const with_ = (change: Partial<GuildSettings>): GuildSettings => ({ ...base, ...change });

test.each<[string, Partial<GuildSettings>, string[], boolean]>([
  ['grace shortened', { graceDays: 0 }, ['graceDays'], true],
  ['grace lengthened', { graceDays: 14 }, ['graceDays'], false],
  ['guard loosened (percent)', { removalThresholdPercent: 100 }, ['removalThresholdPercent'], true],
  ['guard loosened (minimum)', { removalThresholdMin: 100_000 }, ['removalThresholdMin'], true],
  ['guard tightened', { removalThresholdPercent: 5, removalThresholdMin: 10 }, ['removalThresholdPercent', 'removalThresholdMin'], false],
  ['stack → highest', { mode: 'highest' }, ['mode'], true],
  ['join page opened to everyone', { joinNonPatrons: true }, ['joinNonPatrons'], true],
  ['a role setting only', { followerRoleId: '123' }, [], false],
])('%s', (_name, change, policy, weaker) => {
  const after = with_(change);
  expect(policyChanges(base, after)).toEqual(policy);
  expect(weakenings(base, after).length > 0).toBe(weaker);
});

test('going back to stack mode or closing the join page protects more', () => {
  expect(weakenings(with_({ mode: 'highest', joinNonPatrons: true }), base)).toEqual([]);
});
