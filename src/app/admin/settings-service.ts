import type { GuildApplyOutcome } from '../sync';
import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { GuildSnapshotCache } from '../../edges/discord/guild-snapshot-cache';
import { type SettingsChange, applySettingsChange } from '../../core/planner/settings';
import type { GuildSettings } from '../../core/planner/types';
import type { Logger } from '../../shared/logger';
import { checkRole } from './guild-role-check';
import type { ReconcileGuild } from './mapping-service';

export type SettingsOutcome =
  | { kind: 'shown'; settings: GuildSettings }
  | { kind: 'changed'; before: GuildSettings; settings: GuildSettings; followUp: Promise<GuildApplyOutcome> | null }
  | { kind: 'invalid'; problems: string[] };

/** Settings that change who gets which role: changing one reconciles the guild. */
const ROLE_AFFECTING: ReadonlyArray<keyof GuildSettings> = ['graceDays', 'mode', 'formerPatronRoleId', 'followerRoleId', 'strict'];

/** The `/settings` option a creator typed, for each setting the rules name. */
const OPTION_NAMES: Readonly<Record<string, string>> = {
  graceDays: 'grace_days',
  removalThresholdPercent: 'removal_threshold_percent',
  removalThresholdMin: 'removal_threshold_min',
};

/** The settings rules speak of `graceDays`; the creator typed `grace_days`. */
function inOptionNames(problem: string): string {
  return problem.replace(/^(graceDays|removalThresholdPercent|removalThresholdMin)\b/, (key) => OPTION_NAMES[key] ?? key);
}

/** `/settings`: shows the guild's settings, or validates, saves and echoes a change. */
export function createSettingsService(deps: {
  guilds: GuildRepository;
  snapshots: GuildSnapshotCache;
  reconcileGuild: ReconcileGuild;
  logger: Logger;
}) {
  return {
    async apply(guildId: string, change: SettingsChange): Promise<SettingsOutcome> {
      const before = await deps.guilds.settings(guildId);
      const keys = (Object.keys(change) as Array<keyof GuildSettings>).filter((k) => change[k] !== undefined);
      if (keys.length === 0) return { kind: 'shown', settings: before };
      const next = applySettingsChange(before, change);
      if (!next.ok) return { kind: 'invalid', problems: next.error.map(inOptionNames) };
      const problems: string[] = [];
      for (const [key, label] of [
        ['formerPatronRoleId', 'former-patron role'],
        ['followerRoleId', 'follower role'],
      ] as const) {
        const roleId = change[key];
        if (!roleId) continue;
        const check = await checkRole(deps.snapshots, guildId, roleId);
        if (!check.ok) problems.push(`The ${label} cannot be used: ${check.message} **Fix:** ${check.fix}`);
      }
      if (problems.length > 0) return { kind: 'invalid', problems };
      await deps.guilds.saveSettings(guildId, next.value);
      const affects = ROLE_AFFECTING.some((k) => next.value[k] !== before[k]);
      let followUp: Promise<GuildApplyOutcome> | null = null;
      if (affects) {
        followUp = deps.reconcileGuild(guildId, 'settings');
        followUp.catch((error) => deps.logger.error({ err: error, guildId }, 'reconcile after a settings change failed'));
      }
      return { kind: 'changed', before, settings: next.value, followUp };
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
