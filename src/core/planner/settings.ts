import type { Result } from '../result';
import type { GuildSettings, Mode } from './types';
import type { SettingsProblem } from '../settings-problem-text';

/** Defaults per docs/architecture.md: 7 days of grace (Patreon staff: most declines are fixed within a week). */
export const DEFAULT_SETTINGS: Readonly<GuildSettings> = Object.freeze({
  graceDays: 7,
  mode: 'stack',
  formerPatronRoleId: null,
  followerRoleId: null,
  strict: false,
  freeTiersGrantRoles: true,
  removalThresholdPercent: 10,
  removalThresholdMin: 25,
  joinNonPatrons: false,
  joinerRoleId: null,
});

export const SETTING_BOUNDS = {
  graceDays: { min: 0, max: 60 },
  removalThresholdPercent: { min: 1, max: 100 },
  removalThresholdMin: { min: 0, max: 100_000 },
} as const;

export const MODES: readonly Mode[] = ['stack', 'highest'];

export type SettingsChange = Partial<GuildSettings>;

/** The `/settings` option a creator typed, for each setting the bounds name. */
const OPTION_NAMES = {
  graceDays: 'grace_days',
  removalThresholdPercent: 'removal_threshold_percent',
  removalThresholdMin: 'removal_threshold_min',
} as const;

/**
 * Applies a change to settings, rejecting out-of-range values with a problem each (its English
 * sentence, naming the `/settings` option, and its facts), so the reply can say exactly what was wrong.
 */
export function applySettingsChange(current: GuildSettings, change: SettingsChange): Result<GuildSettings, SettingsProblem[]> {
  const problems: SettingsProblem[] = [];
  const next: GuildSettings = { ...current };
  for (const key of ['graceDays', 'removalThresholdPercent', 'removalThresholdMin'] as const) {
    const value = change[key];
    if (value === undefined) continue;
    const { min, max } = SETTING_BOUNDS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      const option = OPTION_NAMES[key];
      problems.push({
        text: `${option} must be a whole number from ${min} to ${max} (got ${value})`,
        facts: { code: 'out_of_range', option, min, max, got: value },
      });
    } else {
      next[key] = value;
    }
  }
  if (change.mode !== undefined) {
    if (MODES.includes(change.mode)) next.mode = change.mode;
    else
      problems.push({
        text: `mode must be one of ${MODES.join(', ')} (got ${String(change.mode)})`,
        facts: { code: 'unknown_mode', modes: MODES, got: String(change.mode) },
      });
  }
  if (change.strict !== undefined) next.strict = change.strict;
  if (change.freeTiersGrantRoles !== undefined) next.freeTiersGrantRoles = change.freeTiersGrantRoles;
  if (change.formerPatronRoleId !== undefined) next.formerPatronRoleId = change.formerPatronRoleId;
  if (change.followerRoleId !== undefined) next.followerRoleId = change.followerRoleId;
  if (change.joinNonPatrons !== undefined) next.joinNonPatrons = change.joinNonPatrons;
  if (change.joinerRoleId !== undefined) next.joinerRoleId = change.joinerRoleId;
  if (next.formerPatronRoleId !== null && next.formerPatronRoleId === next.followerRoleId) {
    problems.push({ text: 'the former-patron role and the follower role must be different roles', facts: { code: 'same_roles' } });
  }
  const joiner = next.joinerRoleId ?? null;
  if (joiner !== null && (joiner === next.formerPatronRoleId || joiner === next.followerRoleId)) {
    problems.push({
      text: 'the joiner role must be a different role from the former-patron and follower roles',
      facts: { code: 'joiner_same' },
    });
  }
  return problems.length > 0 ? { ok: false, error: problems } : { ok: true, value: next };
}
