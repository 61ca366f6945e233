import type { REST } from '@discordjs/rest';
import { type DoctorCheck, renderDoctor } from '../../app/admin/doctor';
import type { SyncOutcome } from '../../app/sync/sync-scheduler';
import { formatSyncReport } from '../../core/sync-report';
import type { Logger } from '../../shared/logger';
import type { BotServices } from './bot-services';
import { COMMANDS } from './commands';
import type { GatewaySessionFeed } from '../discord/member-roles';
import { type DiscordBot, createDiscordBot } from './discord-bot';
import { createInteractionRouter } from './interaction-router';
import { type RegisteredCommandsMemo, registerCommands } from './register-commands';

/** The rejoin restore: one member reconciled, and what was applied (null on a dry run). */
export interface MemberReconciler {
  reconcileMember(
    guildId: string,
    userId: string,
    options: { trigger: 'rejoin' },
  ): Promise<{ result: { applied: ReadonlyArray<{ op: string }> } | null }>;
}

/** The guilds the bot is in, recorded with their names (the pages show them). */
export interface KnownGuilds {
  ensure(guildId: string, name: string): Promise<void>;
}

/** Cached role snapshots, stale once a guild's roles or the bot's own roles change. */
export interface RoleSnapshotCache {
  invalidate(guildId: string): void;
}

/** Each member's roles, kept by the gateway sessions (src/edges/discord/member-roles.ts). */
export interface MemberRoleFeeds {
  session(): GatewaySessionFeed;
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
  /** Shorter in tests: how long to wait for guilds listed in READY. */
  waitGuildTimeoutMs?: number;
}

/** A Discord message holds 2,000 characters: the sync report stays under it. */
const SYNC_REPORT = { limit: 20, maxLength: 1900 } as const;

/**
 * The Discord side of Tierlink: the gateway client, the slash commands behind their router, their
 * registration, and the member and role events (rejoin restore, guild names, stale role
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
    settings: deps.settings,
    staff: deps.staff,
    audit: deps.audit,
    sync: {
      runForGuild: async (guildId, opts) => formatSyncReport(await deps.runSync({ ...opts, guildId, trigger: 'manual' }), SYNC_REPORT),
    },
    doctor: { report: async (guildId) => renderDoctor(await deps.doctor.run(guildId)) },
  };
  let client: DiscordBot | null = null;

  return {
    async start() {
      client = createDiscordBot({
        token: deps.token,
        rest: deps.rest,
        logger,
        onInteraction: createInteractionRouter(COMMANDS, { services, logger }),
        onMemberAdd: async (guildId, userId) => {
          const outcome = await deps.members.reconcileMember(guildId, userId, { trigger: 'rejoin' });
          const added = outcome.result?.applied.filter((c) => c.op === 'add').length ?? 0;
          if (added > 0) logger.info({ guildId, userId, added }, 'roles restored on rejoin');
        },
        onGuildAvailable: (guildId, name) => deps.guilds.ensure(guildId, name),
        onRolesChanged: (guildId) => deps.roleSnapshots.invalidate(guildId),
        onRoleDeleted: (guildId, roleId) => deps.mapping.forgetDeletedRole(guildId, roleId),
        ...(deps.memberRoles ? { memberFeed: deps.memberRoles.session() } : {}),
        ...(deps.waitGuildTimeoutMs !== undefined ? { waitGuildTimeoutMs: deps.waitGuildTimeoutMs } : {}),
      });
      await client.start();
      await registerCommands({
        rest: deps.rest,
        applicationId: deps.applicationId,
        guildId: deps.commandGuildId,
        commands: COMMANDS,
        appState: deps.registeredCommands,
        logger,
      });
    },
    async stop() {
      await client?.stop();
    },
    isReady: () => client?.isReady() ?? false,
    guildIds: () => client?.guildIds() ?? [],
  };
}
