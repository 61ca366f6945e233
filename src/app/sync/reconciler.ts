import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { LedgerRepository } from '../../edges/store/repositories/ledger-repository';
import type { LinkRepository } from '../../edges/store/repositories/link-repository';
import { type SnapshotRepository, toMemberState } from '../../edges/store/repositories/snapshot-repository';
import type { MemberRoles } from '../../edges/discord/member-roles';
import { type PlannedUser, planUser } from '../../core/planner';
import type { MemberState } from '../../core/planner/types';
import type { ApplyResult, RoleApplier, Trigger } from './role-applier';
import type { Clock } from '../../shared/clock';
import type { GuildContextLoader } from './guild-context';
import { type GraceChecks, type GraceEnd, graceEndOf } from './grace-checks';
import type { Logger } from '../../shared/logger';

export interface ReconcileOptions {
  trigger: Trigger;
  /** Plan only: nothing is written to Discord or the ledger. */
  dryRun?: boolean;
  /** The user has no link (any more): every role we granted goes, with this reason. */
  unlinkedReason?: string;
}

export interface MemberOutcome extends PlannedUser {
  guildId: string;
  userId: string;
  /** False when the user is not in the guild (nothing was planned). */
  inGuild: boolean;
  /** Null on a dry run. */
  result: ApplyResult | null;
}

export interface ReconcilerDeps {
  contexts: GuildContextLoader;
  guilds: GuildRepository;
  links: LinkRepository;
  snapshots: SnapshotRepository;
  ledger: LedgerRepository;
  /** The member's roles in Discord: from the gateway-kept cache, or one read when it does not know them. */
  memberRoles: MemberRoles;
  applier: Pick<RoleApplier, 'withMember' | 'apply'>;
  graceChecks: Pick<GraceChecks, 'schedule'>;
  clock: Clock;
  logger: Logger;
}

/**
 * The level-triggered heart of Tierlink (docs/architecture.md): every trigger (a link, a webhook, a rejoin, a
 * mapping change, an unlink) ends here. It gathers the current state of one member (link,
 * snapshots, ledger, roles in Discord), asks the pure planner, and applies the plan. Reconciling a
 * member twice changes nothing the second time, so duplicates and reordered triggers are harmless.
 */
export function createReconciler(deps: ReconcilerDeps) {
  /** A user's link and member snapshots: what the planner knows of their memberships. */
  interface UserState {
    linked: boolean;
    members: MemberState[];
    /** Campaigns the snapshots are in (to find the guilds at stake). */
    campaignIds: string[];
  }

  async function userState(discordUserId: string): Promise<UserState> {
    const link = await deps.links.byDiscordUser(discordUserId);
    if (!link) return { linked: false, members: [], campaignIds: [] };
    const rows = await deps.snapshots.forPatreonUser(link.patreonUserId);
    return { linked: true, members: rows.map(toMemberState), campaignIds: rows.map((r) => r.campaignId) };
  }

  const UNLINKED: UserState = { linked: false, members: [], campaignIds: [] };

  /** The check at the end of the member's grace period; the roles are already applied, so a failure only logs (the nightly sync still comes). */
  async function scheduleGraceEnd(end: GraceEnd | null): Promise<void> {
    if (!end) return;
    try {
      await deps.graceChecks.schedule([end]);
    } catch (error) {
      deps.logger.error(
        { err: error, guildId: end.guildId, userId: end.userId },
        'the check at the end of a grace period could not be scheduled',
      );
    }
  }

  /** `known`: the user's state when the caller just read it (one read for all their guilds). */
  async function reconcileMember(
    guildId: string,
    discordUserId: string,
    options: ReconcileOptions,
    known?: UserState,
  ): Promise<MemberOutcome> {
    return deps.applier.withMember(guildId, discordUserId, async () => {
      const [guild, { members, linked }, roleIds, ledger] = await Promise.all([
        deps.contexts.load(guildId),
        options.unlinkedReason ? Promise.resolve(UNLINKED) : (known ?? userState(discordUserId)),
        deps.memberRoles.rolesOf(guildId, discordUserId),
        deps.ledger.forUser(guildId, discordUserId),
      ]);
      const unlinkedReason = options.unlinkedReason ?? (linked ? undefined : 'no linked membership');
      const planned = planUser({
        guild,
        userId: discordUserId,
        members,
        currentRoleIds: roleIds ? new Set(roleIds) : null,
        ledger,
        now: deps.clock.now(),
        ...(unlinkedReason !== undefined ? { unlinkedReason } : {}),
      });
      const result = options.dryRun ? null : await deps.applier.apply(planned.plan, options.trigger);
      if (!options.dryRun && roleIds !== null) await scheduleGraceEnd(graceEndOf(guild, discordUserId, members, deps.clock.now()));
      return { ...planned, guildId, userId: discordUserId, inGuild: roleIds !== null, result };
    });
  }

  /** The guilds where a user's roles are at stake: those serving their campaigns, and those where we granted them roles. */
  async function guildsFor(discordUserId: string, state: UserState): Promise<string[]> {
    const guildIds = new Set(await deps.ledger.guildsOfUser(discordUserId));
    for (const campaignId of state.campaignIds) {
      for (const guildId of await deps.guilds.guildsOf(campaignId)) guildIds.add(guildId);
    }
    return [...guildIds].sort();
  }

  return {
    reconcileMember: (guildId: string, discordUserId: string, options: ReconcileOptions) =>
      reconcileMember(guildId, discordUserId, options),

    /** Reconciles a Discord user in every guild where their roles are at stake (plus `alsoGuildIds`). */
    async reconcileUser(discordUserId: string, options: ReconcileOptions & { alsoGuildIds?: readonly string[] }): Promise<MemberOutcome[]> {
      const state = options.unlinkedReason ? UNLINKED : await userState(discordUserId);
      const guildIds = new Set([...(await guildsFor(discordUserId, state)), ...(options.alsoGuildIds ?? [])]);
      const outcomes: MemberOutcome[] = [];
      for (const guildId of [...guildIds].sort()) outcomes.push(await reconcileMember(guildId, discordUserId, options, state));
      return outcomes;
    },

    /** Reconciles the Discord user linked to a service user, if any. */
    async reconcilePatreonUser(patreonUserId: string, options: ReconcileOptions): Promise<MemberOutcome[]> {
      const link = await deps.links.byPatreonUser(patreonUserId);
      if (!link) return [];
      return this.reconcileUser(link.discordUserId, options);
    },
  };
}

export type Reconciler = ReturnType<typeof createReconciler>;
