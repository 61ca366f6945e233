import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { SecretBox } from '../../edges/outbound/store/secret-box';
import { type Clock, DAY, MINUTE } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { Linking } from '../linking';
import type { SyncSubsystem } from '../sync';
import type { WebhookRegistration } from '../webhooks/registration';
import { ADMINISTRATOR } from '../../core/role-hierarchy';
import { hasPermission } from '../../core/authority';
import { createActorAuthority } from './actor-authority';
import { createAdoptionCheck } from './adoption-check';
import { createConnectService } from './connect-service';
import { type DoctorCheck, GIVEN_UP_DAYS, createDoctor } from './doctor';
import type { JoinLinks } from '../joining/join-links';
import type { EnvironmentBinding } from './deployment-checks';
import type { GatewayStanding } from '../../edges/outbound/store/instance-registry';
import type { ApplicationInfo } from '../../edges/outbound/discord/application-info';
import { createMappingService } from './mapping-service';
import { createRoleAllowances } from './role-allowances';
import { createSettingsService } from './settings-service';
import { createPendingChanges } from './pending-changes';
import { type ChangeConfirmations, createChangeConfirmations } from './change-confirmations';
import { createChannelSettings } from './channel-settings';
import type { ChannelMessages } from '../../edges/outbound/discord/channel-messages';
import type { Channels } from '../channels';
import { createTiersService } from './tiers-service';
import { CompService } from '../comps/comp-service';
import { RuleRolesService } from './rule-roles-service';
import { progressOf } from '../sync/sync-scheduler';
import type { ActorAuthority } from './actor-authority';
import type { AdoptionCheck } from './adoption-check';
import type { ChannelSettings } from './channel-settings';
import type { ConnectService } from './connect-service';
import type { Doctor } from './doctor';
import type { MappingService } from './mapping-service';
import type { RoleAllowances } from './role-allowances';
import type { SettingsService } from './settings-service';
import type { TiersService } from './tiers-service';

export interface CreatorAdminDeps {
  repos: Pick<
    Repositories,
    | 'guilds'
    | 'campaigns'
    | 'credentials'
    | 'mappings'
    | 'appState'
    | 'syncRuns'
    | 'snapshots'
    | 'channelOutbox'
    | 'comps'
    | 'ruleRoles'
    | 'roleAllowances'
    | 'pendingChanges'
    | 'webhooks'
  >;
  accounts: CreatorAccounts;
  discord: { snapshots: GuildSnapshotCache; directory: GuildDirectory; channels: ChannelMessages; application?: ApplicationInfo };
  /** The mod-log and announcements (`createChannels`). */
  channels: Pick<Channels, 'modLog' | 'announcements'>;
  sync: Pick<SyncSubsystem, 'contexts' | 'applyGuild' | 'strict' | 'changes' | 'reconciler'>;
  linking: Pick<Linking, 'oneTimeLinks' | 'redirectUri'>;
  registration: Pick<WebhookRegistration, 'ensure' | 'health'>;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  publicUrl: () => string;
  /** PATREON_CAMPAIGN_ID. */
  preferredCampaignId: string | undefined;
  /** The join pages' addresses (`/settings join_slug:`) and `/doctor`'s line about the join page. */
  joining: { links: JoinLinks; doctorCheck(guildId: string): Promise<DoctorCheck> };
  /** PATREON_CREATOR_ACCESS_TOKEN is set, and DISCORD_GUILD_ID with DISCORD_GUILD_IDS: the servers it may bind. */
  environmentBinding?: EnvironmentBinding;
  /** Scheduled backups (BACKUP_DIR), for `/doctor`. */
  backups?: { doctorCheck(): Promise<DoctorCheck> };
  /** Who holds each gateway shard (`/doctor`). */
  gateway?: { standing(): Promise<GatewayStanding | null> };
  /** Campaigns any server may map without `/connect` (Ko-fi's page: src/app/admin/tiers-service.ts). */
  openCampaignIds?: readonly string[];
  /** PATREON_CURRENCY: the currency of prices whose campaign does not state one (`/tiers`). */
  currency?: string;
}

export function createCreatorAdmin(deps: CreatorAdminDeps): CreatorAdmin {
  const { repos, accounts, discord, sync, clock, logger } = deps;
  const reconcileGuild = sync.applyGuild;
  const authority = createActorAuthority({ directory: discord.directory, snapshots: discord.snapshots });
  const connect = createConnectService({
    ...repos,
    oneTimeLinks: deps.linking.oneTimeLinks,
    accounts,
    clock,
    logger,
    redirectUri: deps.linking.redirectUri,
    publicUrl: deps.publicUrl,
    preferredCampaignId: deps.preferredCampaignId,
    onBound: async (bound) => {
      // Servers bound one after another to one campaign share a check made within the minute.
      const result = await deps.registration.ensure(bound.campaignId, { freshWithinMs: MINUTE });
      if (result.state === 'failed')
        logger.warn({ campaignId: bound.campaignId, detail: result.detail }, 'webhook registration failed at connect');
    },
    // The owner holds every bit; anyone else needs Administrator, read from Discord now, and is
    // remembered with their highest role: the campaign's tiers give only roles below it.
    connectorOf: async (guildId, userId) => {
      const view = await authority.read({ guildId, userId }, { fresh: true });
      if (!view || !hasPermission(view.authority, ADMINISTRATOR)) return null;
      return { userId, roleId: view.authority.isOwner ? null : (view.authority.highest?.id ?? guildId) };
    },
  });
  const tiers = createTiersService({
    ...repos,
    accounts,
    contexts: sync.contexts,
    ...(deps.openCampaignIds ? { openCampaignIds: deps.openCampaignIds } : {}),
    ...(deps.currency ? { currency: deps.currency } : {}),
    clock,
    logger,
  });
  const allowances = createRoleAllowances({
    authority,
    allowances: repos.roleAllowances,
    contexts: sync.contexts,
    reconcileGuild,
    clock,
    logger,
  });
  const pending = createPendingChanges({ store: repos.pendingChanges, clock });
  const mapping = createMappingService({
    mappings: repos.mappings,
    guilds: repos.guilds,
    tiers,
    authority,
    allowances,
    reconcileGuild,
    previews: sync.changes,
    pending,
    logger,
  });
  const channelSettings = createChannelSettings({
    guilds: repos.guilds,
    channels: discord.channels,
    directory: discord.directory,
    startModLog: async (guildId) => deps.channels.modLog.start(guildId, await repos.channelOutbox.auditHorizon()),
    postSource: (campaignId) => deps.channels.announcements.postSource(campaignId),
    clock,
  });
  const settings = createSettingsService({
    guilds: repos.guilds,
    allowances,
    channels: channelSettings,
    authority,
    strict: sync.strict,
    previews: sync.changes,
    pending,
    contexts: sync.contexts,
    box: deps.box,
    clock,
    reconcileGuild,
    joinLinks: deps.joining.links,
    logger,
  });

  const doctor = createDoctor({
    ...repos,
    accounts,
    contexts: sync.contexts,
    snapshots: discord.snapshots,
    directory: discord.directory,
    members: repos.snapshots,
    ...(discord.application ? { application: discord.application } : {}),
    ...(deps.environmentBinding ? { environmentBinding: deps.environmentBinding } : {}),
    ...(deps.gateway ? { gateway: deps.gateway } : {}),
    clock,
    webhookHealth: async (campaignId) => {
      const health = await deps.registration.health(campaignId);
      return {
        webhookId: health.webhookId,
        uri: health.uri,
        registered: health.exists,
        paused: health.paused ?? false,
        numConsecutiveTimesFailed: health.numConsecutiveTimesFailed ?? 0,
        checkedAt: health.checkedAt,
        manualSecret: health.manualSecret,
      };
    },
    postPollFailure: (campaignId) => deps.channels.announcements.postPollFailure(campaignId),
    givenUpDeliveries: (campaignId) => repos.webhooks.givenUpSince(campaignId, new Date(clock.now().getTime() - GIVEN_UP_DAYS * DAY)),
    joinPage: (guildId) => deps.joining.doctorCheck(guildId),
    ...(deps.backups ? { backups: deps.backups.doctorCheck } : {}),
    lastSync: async (guildId) => {
      const run = await repos.syncRuns.lastFinished(guildId);
      if (!run) return null;
      const { startedAt, finishedAt, status, heldRemovals, heldReason, errors } = run;
      return { startedAt, finishedAt, status, heldRemovals, heldReason, errors };
    },
    runningSync: async (guildId) => {
      const [run] = await repos.syncRuns.running(guildId);
      return run ? progressOf(run) : null;
    },
  });

  const comps = new CompService({
    comps: repos.comps,
    tiers,
    contexts: sync.contexts,
    authority,
    reconciler: sync.reconciler,
    clock,
    logger,
  });

  const rules = new RuleRolesService({
    rules: repos.ruleRoles,
    authority,
    reconcileGuild,
    previews: sync.changes,
    pending,
    thresholdOf: (guildId) => repos.guilds.previewThreshold(guildId),
    clock,
    logger,
  });

  const confirmations = createChangeConfirmations({ pending, mapping, settings, rules });

  return {
    authority,
    rules,
    adoption: createAdoptionCheck({ authority, contexts: sync.contexts }),
    allowances,
    connect,
    tiers,
    mapping,
    comps,
    settings,
    confirmations,
    channelSettings,
    doctor,

    async connectFromEnvironment(
      tokens: { accessToken: string; refreshToken: string },
      bindGuildIds: readonly string[],
      botGuildIds: readonly string[],
    ): Promise<void> {
      const bound = await connect.connectFromEnvironment(tokens, bindGuildIds);
      logger.info(
        { guilds: bound.map((b) => b.guildId), campaign: bound[0]?.campaignId ?? null },
        'creator connected from the environment',
      );
      if (bindGuildIds.length === 0) {
        logger.warn(
          'PATREON_CREATOR_ACCESS_TOKEN is set, but neither DISCORD_GUILD_ID nor DISCORD_GUILD_IDS names a server: the creator is connected and no server is bound. Add the server ids to DISCORD_GUILD_IDS and restart, or run /connect in the server.',
        );
      }
      const unbound: string[] = [];
      for (const guildId of botGuildIds) {
        if (!bindGuildIds.includes(guildId) && (await repos.guilds.campaignsOf(guildId)).length === 0) unbound.push(guildId);
      }
      if (unbound.length > 0) {
        logger.warn(
          { guilds: unbound.slice(0, 20), count: unbound.length },
          'the bot is in servers the creator tokens from the environment do not bind (only DISCORD_GUILD_ID and DISCORD_GUILD_IDS are bound); run /connect there, or add them to DISCORD_GUILD_IDS',
        );
      }
    },
  };
}

/**
 * The creator side: `/connect` (and connecting from the environment's tokens), `/tiers`, `/map`,
 * `/unmap`, `/settings` and `/doctor`. A connected campaign gets its webhook registered at once;
 * a change of mapping or settings is applied guild-wide under the full-sync lock. Every change that
 * concerns a role is checked against the asking member's authority, read from Discord.
 */
export interface CreatorAdmin {
  authority: ActorAuthority;
  rules: RuleRolesService;
  adoption: AdoptionCheck;
  allowances: RoleAllowances;
  connect: ConnectService;
  tiers: TiersService;
  mapping: MappingService;
  comps: CompService;
  settings: SettingsService;
  /** Confirm and Cancel of the changes shown first (src/app/admin/change-confirmations.ts). */
  confirmations: ChangeConfirmations;
  channelSettings: ChannelSettings;
  doctor: Doctor;
  /**
   * PATREON_CREATOR_ACCESS_TOKEN at start-up: connects the creator and binds the campaign to the
   * servers `bindGuildIds` names (DISCORD_GUILD_ID and DISCORD_GUILD_IDS) and to no other: a
   * server that merely added the bot is never bound to the creator's campaign. Says in the log
   * which servers the bot is in that stay unbound, and how to bind them.
   */
  connectFromEnvironment(
    tokens: { accessToken: string; refreshToken: string },
    bindGuildIds: readonly string[],
    botGuildIds: readonly string[],
  ): Promise<void>;
}
