import type { REST } from '@discordjs/rest';
import { type Interaction, type RESTGetAPIGatewayBotResult, Routes } from 'discord.js';
import { type DoctorCheck, renderDoctor } from '../../../app/admin/doctor';
import { translator } from '../../../core/i18n';
import type { SyncOutcome } from '../../../app/sync/sync-scheduler';
import { formatSyncReport } from '../../../core/sync-report';
import { renderSyncReply } from './sync-reply';
import type { Fence, FenceScope } from '../../../shared/fence';
import { createKeyedMutex } from '../../../shared/keyed-mutex';
import type { Logger } from '../../../shared/logger';
import type { BotServices } from './bot-services';
import { COMMANDS } from './commands';
import type { GatewaySessionEvents, GatewaySessionFeed } from '../../outbound/discord/member-roles';
import { createShardClient } from './discord-bot';
import { createIdentifyThrottler } from './identify-gate';
import { createInteractionRouter } from './interaction-router';
import { createPayloadInteractions } from './payload-interactions';
import { type RegisteredCommandsMemo, registerCommands } from './register-commands';
import { type GatewayLeases, type InstanceIdentity, type SessionGap, createShardCoordinator } from './shard-coordinator';
import { within } from '../../../shared/within';

/** The rejoin restore: one member reconciled, and what was applied (null on a dry run); and a member who left. */
export interface MemberReconciler {
  reconcileMember(
    guildId: string,
    userId: string,
    options: { trigger: 'rejoin' },
  ): Promise<{ result: { applied: ReadonlyArray<{ op: string }> } | null }>;
  /** The member left the server: the Members page has them out of it (no role is touched). */
  memberLeft(guildId: string, userId: string): Promise<void>;
}

/** The guilds the bot is in, recorded with their names (the pages show them) and languages (announcements, the mod-log). */
export interface KnownGuilds {
  ensure(guildId: string, name: string, discordLocale: string | null): Promise<void>;
}

/** Cached role snapshots, stale once a guild's roles or the bot's own roles change. */
export interface RoleSnapshotCache {
  invalidate(guildId: string): void;
}

/** Each member's roles, kept by the gateway sessions (src/edges/outbound/discord/member-roles.ts). */
export interface MemberRoleFeeds {
  session(events?: GatewaySessionEvents): GatewaySessionFeed;
}

export interface BotDeps extends Omit<BotServices, 'sync' | 'doctor'> {
  token: string;
  applicationId: string;
  /** DISCORD_GUILD_ID: the commands are registered on this guild only (instant), globally otherwise. */
  commandGuildId: string | undefined;
  /** The REST instance the role port uses: one rate-limit state for the whole bot. */
  rest: REST;
  logger: Logger;
  runSync(options: { guildId: string; dryRun: boolean; force: boolean; adopt: boolean; trigger: 'manual' }): Promise<SyncOutcome>;
  doctor: { run(guildId: string): Promise<readonly DoctorCheck[]> };
  members: MemberReconciler;
  guilds: KnownGuilds;
  roleSnapshots: RoleSnapshotCache;
  memberRoles?: MemberRoleFeeds;
  registeredCommands: RegisteredCommandsMemo;
  /** This instance, the shared instance table and shard leases, and DISCORD_SHARD_COUNT (docs/decisions.md §17). */
  gateway: {
    instance: InstanceIdentity;
    leases: GatewayLeases;
    fixedShardCount: number | undefined;
    /** Tests: a shorter round than the default (a fifth of the lease). */
    tickMs?: number;
  };
  /**
   * The fences of the shards' events (docs/outages-and-fencing.md): an event is acted on only while this
   * instance still holds its shard's lease at the generation it took it with, and the writes it
   * leads to check the same (the scope carries the fence to the role applier). An interaction is
   * claimed with the fence, so an old and a new session of one shard never both answer it.
   */
  fences?: {
    holds(fence: Fence): Promise<boolean>;
    claimInteraction(interactionId: string, fence: Fence | null): Promise<boolean>;
    scope: FenceScope;
  };
  /** False until the configured campaigns are bound: commands are answered "starting" until then. */
  isServing(): boolean;
  /** Shorter in tests: how long to wait for guilds listed in READY. */
  waitGuildTimeoutMs?: number;
}

/** The Discord side as the rest of Tierlink sees it. */
export interface DiscordBot {
  /** Takes this instance's share of the gateway shards (ready when resolved), then registers the commands. */
  start(): Promise<void>;
  /**
   * Lets the interactions already being answered finish (up to `graceMs`, default 10 s: their
   * replies go through the sessions' clients), then closes the sessions and hands the shards over
   * to the other instances.
   */
  stop(graceMs?: number): Promise<void>;
  isReady(): boolean;
  /** The shards whose sessions this instance holds, and the shard count. */
  shards(): { held: number[]; count: number | null };
  /** Shards this instance holds without a connected session, and for how long. */
  gaps(): SessionGap[];
  /** Guilds on the shards this instance holds. */
  guildIds(): string[];
  /**
   * An interaction Discord delivered by HTTP (`POST /interactions`, already verified): handled by
   * the same router and commands as one from the gateway. Returns at once; the answer goes through
   * the interaction callback and webhook routes.
   */
  handleInteraction(payload: Record<string, unknown>): void;
}

/** A Discord message holds 2,000 characters: the sync report stays under it. */
const SYNC_REPORT = { limit: 20, maxLength: 1900 } as const;

/**
 * The Discord side of Tierlink: the gateway client, the slash commands behind their router, their
 * registration, and the member and role events (rejoin restore, leaves, guild names, stale role
 * snapshots, deleted roles). Nothing connects before `start()`, which logs in and then registers
 * the commands.
 */
export function createBot(deps: BotDeps): DiscordBot {
  const { logger } = deps;
  const services: BotServices = {
    authority: deps.authority,
    link: deps.link,
    connect: deps.connect,
    status: deps.status,
    tiers: deps.tiers,
    mapping: deps.mapping,
    comps: deps.comps,
    rules: deps.rules,
    settings: deps.settings,
    confirmations: deps.confirmations,
    staff: deps.staff,
    audit: deps.audit,
    adoption: deps.adoption,
    allowances: deps.allowances,
    privacy: deps.privacy,
    kofi: deps.kofi ?? null,
    sync: {
      runForGuild: async (guildId, opts, locale = 'en') => {
        const report = await deps.runSync({ ...opts, guildId, trigger: 'manual' });
        return locale === 'en' ? formatSyncReport(report, SYNC_REPORT) : renderSyncReply(report, locale);
      },
    },
    doctor: { report: async (guildId, locale = 'en') => renderDoctor(await deps.doctor.run(guildId), translator(locale)) },
  };
  const route = createInteractionRouter(COMMANDS, { services, logger }, { isServing: deps.isServing });
  /**
   * Interactions being answered: `stop()` lets them finish (within its grace) before the rest of
   * the service closes, so a command in flight is answered, not failed half-way by a closed database.
   */
  const answering = new Set<Promise<void>>();
  const onInteraction = (interaction: Interaction): Promise<void> => {
    const handling = route(interaction);
    answering.add(handling);
    const done = () => answering.delete(handling);
    handling.then(done, done);
    return handling;
  };
  /** Interactions that came by HTTP, while the router hears them (claimed by the endpoint already). */
  const viaHttp = new Set<string>();

  /** Runs an event's handler only while this instance still holds the event's shard (see {@link BotDeps.fences}). */
  async function fenced(shardId: number, what: string, task: () => Promise<void>): Promise<void> {
    const fence = coordinator.fenceFor(shardId);
    if (!fence || (deps.fences && !(await deps.fences.holds(fence)))) {
      logger.warn({ shard: shardId, what }, 'an event of a shard this instance no longer holds: dropped');
      return;
    }
    await (deps.fences ? deps.fences.scope.run(fence, task) : task());
  }

  /**
   * A member's joins and leaves are handled one at a time, in the order the gateway sent them: a
   * leave and the rejoin right after it would otherwise race through their fence checks, and the
   * leave could land last (the member shown gone while back in the server).
   */
  const memberEvents = createKeyedMutex();
  const inOrder = (guildId: string, userId: string, task: () => Promise<void>) => memberEvents.run(`${guildId}:${userId}`, task);
  /** A join, or a member passing the server's Membership Screening: their roles are planned as for a rejoin. */
  const memberJoined = (shardId: number, guildId: string, userId: string, what: string) =>
    inOrder(guildId, userId, () =>
      fenced(shardId, what, async () => {
        const outcome = await deps.members.reconcileMember(guildId, userId, { trigger: 'rejoin' });
        const added = outcome.result?.applied.filter((c) => c.op === 'add').length ?? 0;
        if (added > 0) logger.info({ guildId, userId, added }, 'roles restored on rejoin');
      }),
    );

  /** A gateway interaction is answered by the one instance that claims it while holding its shard. */
  async function onGatewayInteraction(shardId: number, interaction: Interaction): Promise<void> {
    if (viaHttp.has(interaction.id) || !deps.fences) return onInteraction(interaction);
    const fence = coordinator.fenceFor(shardId);
    let claimed: boolean;
    try {
      claimed = fence !== null && (await deps.fences.claimInteraction(interaction.id, fence));
    } catch (error) {
      // The database is away: answer anyway (an autocomplete, "try again"), as before any claim existed.
      logger.warn({ err: error, shard: shardId }, 'the interaction could not be claimed; answering it anyway');
      claimed = true;
    }
    if (!claimed) {
      logger.warn(
        { shard: shardId, id: interaction.id },
        'an interaction another instance took, or of a shard no longer held here: dropped',
      );
      return;
    }
    await onInteraction(interaction);
  }
  const coordinator = createShardCoordinator({
    me: deps.gateway.instance,
    leases: deps.gateway.leases,
    fixedShardCount: deps.gateway.fixedShardCount,
    logger,
    ...(deps.gateway.tickMs !== undefined ? { tickMs: deps.gateway.tickMs } : {}),
    async gatewayInfo() {
      const info = (await deps.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
      return { shards: info.shards, maxConcurrency: info.session_start_limit.max_concurrency };
    },
    createThrottler: (maxConcurrency) => createIdentifyThrottler({ slots: deps.gateway.leases, maxConcurrency, logger }),
    openShard: (shardId, shardCount, identifyThrottler, onFatalClose) =>
      createShardClient({
        token: deps.token,
        shardId,
        shardCount,
        identifyThrottler,
        onFatalClose,
        rest: deps.rest,
        logger,
        onInteraction: (interaction) => onGatewayInteraction(shardId, interaction),
        onMemberAdd: (guildId, userId) => memberJoined(shardId, guildId, userId, 'member joined'),
        onMemberRemove: (guildId, userId) =>
          inOrder(guildId, userId, () => fenced(shardId, 'member left', () => deps.members.memberLeft(guildId, userId))),
        onGuildAvailable: (guildId, name, locale) => deps.guilds.ensure(guildId, name, locale),
        onRolesChanged: (guildId) => deps.roleSnapshots.invalidate(guildId),
        onRoleDeleted: (guildId, roleId) => fenced(shardId, 'role deleted', () => deps.mapping.forgetDeletedRole(guildId, roleId)),
        ...(deps.memberRoles
          ? {
              memberFeed: deps.memberRoles.session({
                // Their roles were held while they had not accepted the server's rules: due now, as on a join.
                screeningPassed: (guildId, userId) => {
                  memberJoined(shardId, guildId, userId, 'member passed screening').catch((error: unknown) =>
                    logger.error({ err: error, guildId }, 'roles after the server’s rules failed'),
                  );
                },
              }),
            }
          : {}),
        ...(deps.waitGuildTimeoutMs !== undefined ? { waitGuildTimeoutMs: deps.waitGuildTimeoutMs } : {}),
      }),
  });
  const payloads = createPayloadInteractions({
    rest: deps.rest,
    onInteraction,
    logger,
    // The shard's own client when this instance holds the guild: its cache (the guild, the member's
    // roles) is what a gateway interaction would carry.
    clientFor: (guildId) => coordinator.sessions().find((s) => s.client.guilds.cache.has(guildId))?.client ?? null,
  });

  return {
    async start() {
      await coordinator.start();
      await registerCommands({
        rest: deps.rest,
        applicationId: deps.applicationId,
        guildId: deps.commandGuildId,
        commands: COMMANDS,
        appState: deps.registeredCommands,
        logger,
      });
    },
    async stop(graceMs = 10_000) {
      const answered = await within(
        Promise.allSettled([...answering]).then(() => true),
        graceMs,
        () => false,
      );
      if (!answered) logger.warn({ interactions: answering.size }, 'stopped while interactions were still being answered');
      await coordinator.stop();
      await payloads.close();
    },
    isReady: () => coordinator.isReady(),
    shards: () => ({ held: coordinator.shards(), count: coordinator.shardCount() }),
    gaps: () => coordinator.gaps(),
    guildIds: () => coordinator.sessions().flatMap((s) => s.guildIds()),
    handleInteraction: (payload) => {
      const id = typeof payload.id === 'string' ? payload.id : null;
      if (id) viaHttp.add(id);
      try {
        payloads.handle(payload);
      } finally {
        if (id) viaHttp.delete(id);
      }
    },
  };
}
