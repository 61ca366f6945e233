import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import { guildRoles } from '../../core/guild-roles';
import type { GuildSettings } from '../../core/planner/types';
import type { GuildApplyOutcome } from '../sync';
import type { MapOutcome, MappingService } from '../admin/mapping-service';
import type { ServerChoices, SettingsOutcome, SettingsRequest, SettingsService, StrictConfirmOutcome } from '../admin/settings-service';
import type { ChangeConfirmOutcome, ChangeConfirmations } from '../admin/change-confirmations';
import { DASHBOARD_PREVIEW_THRESHOLD } from '../../core/bulk-changes';
import { type TierLine, type TiersService, tierRef } from '../admin/tiers-service';
import type { ChannelSettings } from '../admin/channel-settings';
import type { AllowOutcome, RoleAllowances } from '../admin/role-allowances';
import { type ChannelChange, type ChannelSetting, type GuildChannels, channelOf } from '../../core/guild-channels';
import type { RuleRole } from '../../core/planner/types';
import type { RuleRoleOutcome, RuleRolesService } from '../admin/rule-roles-service';

/** How long a page waits for the roles update after a change before it says "in the background". */
export const FOLLOW_UP_WAIT_MS = 5_000;

export interface RoleChoice {
  id: string;
  name: string;
  /** Why Tierlink cannot grant it, when it cannot (above its role, …). */
  problem: string | null;
}

export interface ConfigurationView {
  tiers: Array<TierLine & { ref: string }>;
  settings: GuildSettings;
  /** The channels Tierlink posts in, and the server's text channels to choose from. */
  channels: GuildChannels;
  channelChoices: Array<{ id: string; name: string }>;
  /** The server's roles a tier or setting may name, highest first (not @everyone, not integration roles). */
  roles: RoleChoice[];
  /** The roles by tenure and amount. */
  rules: RuleRole[];
  /** Messages to patrons, how welcomes name them, and when Discord's commands ask first. */
  choices: ServerChoices;
}

/** A change and what the roles update after it did, as far as the page waited for it. */
export type FollowUp = GuildApplyOutcome | { kind: 'running' } | { kind: 'failed' };

export interface ConfigurationDeps {
  tiers: Pick<TiersService, 'list'>;
  guilds: Pick<GuildRepository, 'settings'>;
  snapshots: Pick<GuildSnapshotCache, 'get'>;
  mapping: Pick<MappingService, 'map' | 'unmap'>;
  settings: Pick<SettingsService, 'apply' | 'confirmStrict' | 'choices'>;
  /** Confirm and Cancel of a change the page showed first. */
  confirmations: ChangeConfirmations;
  allowances: Pick<RoleAllowances, 'set'>;
  channelSettings: Pick<ChannelSettings, 'current' | 'postable'>;
  rules: Pick<RuleRolesService, 'list' | 'set' | 'remove'>;
  sleep?: (ms: number) => Promise<void>;
}

export function createConfiguration(deps: ConfigurationDeps): Configuration {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));

  async function wait(followUp: Promise<GuildApplyOutcome> | null): Promise<FollowUp | null> {
    if (!followUp) return null;
    const settled = followUp.then(
      (outcome): FollowUp => outcome,
      (): FollowUp => ({ kind: 'failed' }),
    );
    return Promise.race([settled, sleep(FOLLOW_UP_WAIT_MS).then((): FollowUp => ({ kind: 'running' }))]);
  }

  async function roleChoices(guildId: string): Promise<RoleChoice[]> {
    const snapshot = await deps.snapshots.get(guildId);
    const judged = guildRoles(guildId, snapshot);
    return [...snapshot.roles]
      .filter((r) => r.id !== guildId && !r.managed)
      .sort((a, b) => b.position - a.position || (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      .map((r) => ({ id: r.id, name: r.name, problem: judged.get(r.id)?.problem?.message ?? null }));
  }

  return {
    roleChoices,

    async tierChoices(guildId: string): Promise<Array<{ ref: string; title: string }>> {
      return (await deps.tiers.list(guildId)).map((t) => ({ ref: tierRef(t.campaignId, t.tierId), title: t.title }));
    },

    async view(guildId: string): Promise<ConfigurationView> {
      const [tiers, settings, roles, channels, postable, rules, choices] = await Promise.all([
        deps.tiers.list(guildId),
        deps.guilds.settings(guildId),
        roleChoices(guildId),
        deps.channelSettings.current(guildId),
        deps.channelSettings.postable(guildId),
        deps.rules.list(guildId),
        deps.settings.choices(guildId),
      ]);
      const channelChoices = postable.map((c) => ({ id: c.id, name: c.name }));
      return {
        tiers: tiers.map((t) => ({ ...t, ref: tierRef(t.campaignId, t.tierId) })),
        settings,
        roles,
        channels,
        channelChoices,
        rules,
        choices,
      };
    },

    async setRule(guildId: string, actorId: string, rule: RuleRole): Promise<{ outcome: RuleRoleOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.rules.set({ guildId, userId: actorId }, rule, { threshold: DASHBOARD_PREVIEW_THRESHOLD });
      return { outcome, followUp: outcome.kind === 'done' ? await wait(outcome.followUp) : null };
    },

    async removeRule(guildId: string, actorId: string, roleId: string): Promise<{ outcome: RuleRoleOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.rules.remove({ guildId, userId: actorId }, roleId, { threshold: DASHBOARD_PREVIEW_THRESHOLD });
      return { outcome, followUp: outcome.kind === 'done' ? await wait(outcome.followUp) : null };
    },

    async map(guildId: string, actorId: string, tier: string, roleId: string): Promise<{ outcome: MapOutcome; followUp: FollowUp | null }> {
      // The page always shows a change first (src/core/bulk-changes.ts).
      const outcome = await deps.mapping.map({ guildId, userId: actorId }, tier, roleId, { threshold: DASHBOARD_PREVIEW_THRESHOLD });
      return { outcome, followUp: outcome.kind === 'done' && outcome.changed ? await wait(outcome.followUp) : null };
    },

    async unmap(
      guildId: string,
      actorId: string,
      tier: string,
      roleId: string,
    ): Promise<{ outcome: MapOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.mapping.unmap({ guildId, userId: actorId }, tier, roleId, { threshold: DASHBOARD_PREVIEW_THRESHOLD });
      return { outcome, followUp: outcome.kind === 'done' ? await wait(outcome.followUp) : null };
    },

    async saveSettings(
      guildId: string,
      actorId: string,
      change: SettingsRequest,
    ): Promise<{ outcome: SettingsOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.settings.apply({ guildId, userId: actorId }, change, {}, { threshold: DASHBOARD_PREVIEW_THRESHOLD });
      return { outcome, followUp: outcome.kind === 'changed' ? await wait(outcome.followUp) : null };
    },

    async confirmChange(
      guildId: string,
      actorId: string,
      token: string,
    ): Promise<{ outcome: ChangeConfirmOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.confirmations.confirm({ guildId, userId: actorId }, token);
      const pending =
        (outcome.kind === 'map' || outcome.kind === 'unmap') && outcome.outcome.kind === 'done' && outcome.outcome.changed
          ? outcome.outcome.followUp
          : outcome.kind === 'settings' && outcome.outcome.kind === 'changed'
            ? outcome.outcome.followUp
            : (outcome.kind === 'rule_set' || outcome.kind === 'rule_remove') && outcome.outcome.kind === 'done'
              ? outcome.outcome.followUp
              : null;
      return { outcome, followUp: await wait(pending) };
    },

    cancelChange: (guildId: string, actorId: string, token: string) => deps.confirmations.cancel({ guildId, userId: actorId }, token),

    async allowRole(guildId: string, actorId: string, roleId: string): Promise<{ outcome: AllowOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.allowances.set({ guildId, userId: actorId }, roleId, true);
      return {
        outcome,
        followUp: outcome.kind === 'allowed' || outcome.kind === 'allowed_above_connector' ? await wait(outcome.followUp) : null,
      };
    },

    async confirmStrict(
      guildId: string,
      actorId: string,
      confirmation: string,
    ): Promise<{ outcome: StrictConfirmOutcome; followUp: FollowUp | null }> {
      const outcome = await deps.settings.confirmStrict({ guildId, userId: actorId }, confirmation);
      return { outcome, followUp: outcome.kind === 'changed' ? await wait(outcome.followUp) : null };
    },

    async saveChannels(guildId: string, actorId: string, wanted: Record<ChannelSetting, string | null>): Promise<SettingsOutcome> {
      const current = await deps.channelSettings.current(guildId);
      const change: ChannelChange = {};
      for (const key of Object.keys(wanted) as ChannelSetting[]) if (wanted[key] !== channelOf(current, key)) change[key] = wanted[key];
      return deps.settings.apply({ guildId, userId: actorId }, {}, change);
    },
  };
}

/**
 * The Tiers and roles page: the same services `/tiers`, `/map`, `/unmap` and `/settings` use, so a
 * change made on the page is checked, refused and applied exactly as the command's. The signed-in
 * user's Discord id is the actor the services check.
 */
export interface Configuration {
  roleChoices(guildId: string): Promise<RoleChoice[]>;
  /** The server's tiers as a form lists them (the comps form on a member's page). */
  tierChoices(guildId: string): Promise<Array<{ ref: string; title: string }>>;
  view(guildId: string): Promise<ConfigurationView>;
  /** A role by tenure or amount, set or removed as `/settings rule_role` does. */
  setRule(guildId: string, actorId: string, rule: RuleRole): Promise<{ outcome: RuleRoleOutcome; followUp: FollowUp | null }>;
  removeRule(guildId: string, actorId: string, roleId: string): Promise<{ outcome: RuleRoleOutcome; followUp: FollowUp | null }>;
  map(guildId: string, actorId: string, tier: string, roleId: string): Promise<{ outcome: MapOutcome; followUp: FollowUp | null }>;
  unmap(guildId: string, actorId: string, tier: string, roleId: string): Promise<{ outcome: MapOutcome; followUp: FollowUp | null }>;
  saveSettings(guildId: string, actorId: string, change: SettingsRequest): Promise<{ outcome: SettingsOutcome; followUp: FollowUp | null }>;
  /** Confirms a change the page showed first, as Discord's Confirm button does. */
  confirmChange(guildId: string, actorId: string, token: string): Promise<{ outcome: ChangeConfirmOutcome; followUp: FollowUp | null }>;
  cancelChange(guildId: string, actorId: string, token: string): ReturnType<ChangeConfirmations['cancel']>;
  /** Allows a held-back role, as `/allow-role` does (the owner or an administrator only). */
  allowRole(guildId: string, actorId: string, roleId: string): Promise<{ outcome: AllowOutcome; followUp: FollowUp | null }>;
  /** Confirms strict mode with the token the settings change handed out (as the button in Discord does). */
  confirmStrict(
    guildId: string,
    actorId: string,
    confirmation: string,
  ): Promise<{ outcome: StrictConfirmOutcome; followUp: FollowUp | null }>;
  /** The channels form: only the channels that differ from what is set are changed (and checked). */
  saveChannels(guildId: string, actorId: string, wanted: Record<ChannelSetting, string | null>): Promise<SettingsOutcome>;
}
