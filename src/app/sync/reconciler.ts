import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import type { MemberListRepository } from '../../edges/outbound/store/repositories/member-list-repository';
import { type MemberRoles, PENDING_MEMBER } from '../../edges/outbound/discord/member-roles';
import type { MemberStates } from '../membership/member-states';
import { type PlannedUser, type UnlinkedReason, planUser } from '../../core/planner';
import type { GuildContext, MemberState } from '../../core/planner/types';
import type { MemberAddProblem } from '../../edges/outbound/discord/member-adder';
import type { Admit, ApplyResult, RoleApplier, Trigger } from './role-applier';
import type { Clock } from '../../shared/clock';
import { type FenceScope, LeaseLostError } from '../../shared/fence';
import type { GuildContextLoader } from './guild-context';
import { type GraceChecks, type GraceEnd, graceEndOf } from './grace-checks';
import type { Logger } from '../../shared/logger';
import type { PatronMessages } from '../membership/patron-messages';

export interface ReconcileOptions {
  trigger: Trigger;
  /** Plan only: nothing is written to Discord or the ledger. */
  dryRun?: boolean;
  /** The user has no link (any more): every role we granted goes, with this reason. */
  unlinkedReason?: UnlinkedReason;
  /**
   * Skip, without asking Discord, a guild whose gateway events reach this process but never named
   * the user: after the sync's listing and with every join and leave since, that is someone who is
   * not in the server (a join reconciles them itself). For a put-right that no change asked for (a
   * delivery that says what is stored: docs/decisions.md §22), so that charge day does not read
   * every patron who is not in the server. A guild whose events go elsewhere is read as always.
   */
  knownMembersOnly?: boolean;
}

export interface MemberOutcome extends PlannedUser {
  guildId: string;
  userId: string;
  /** False when the user is not in the guild (nothing was planned). */
  inGuild: boolean;
  /**
   * In the guild but not yet through its Membership Screening: planned as not in it (nothing given,
   * since a role would let them skip the server's rules); their roles come when they pass it.
   */
  pending: boolean;
  /** Null on a dry run. */
  result: ApplyResult | null;
}

/** A join page's last step: added with the roles, found already in the guild (reconciled as `/link` does), or refused. */
export type JoinOutcome =
  | { kind: 'added'; outcome: MemberOutcome }
  | { kind: 'already_member'; outcome: MemberOutcome }
  /** Added behind the server's Membership Screening, with no role: the roles come when they accept the rules. */
  | { kind: 'pending'; outcome: MemberOutcome }
  | { kind: 'refused'; problem: MemberAddProblem; outcome: MemberOutcome };

export interface ReconcilerDeps {
  contexts: GuildContextLoader;
  guilds: Pick<GuildRepository, 'guildsOf'>;
  links: Pick<LinkRepository, 'byExternal'>;
  /** Every source's member states (src/app/membership/member-states.ts). */
  states: Pick<MemberStates, 'forUser'>;
  ledger: Pick<LedgerRepository, 'forUser' | 'guildsOfUser'>;
  /** The member's roles in Discord: from the gateway-kept cache, or one read when it does not know them. */
  memberRoles: MemberRoles;
  applier: Pick<RoleApplier, 'withMember' | 'apply' | 'join'>;
  graceChecks: Pick<GraceChecks, 'schedule'>;
  /** Direct messages to the member after their roles are applied (a declined payment); started, never awaited. */
  patronMessages?: Pick<PatronMessages, 'afterApply'>;
  /** Who is in the server, for the Members page: a reconcile learns it for one member. */
  memberList?: Pick<MemberListRepository, 'present' | 'left'>;
  /** The fence of the event under way (a gateway shard's lease): a leave is written only while it holds. */
  fences?: Pick<FenceScope, 'current'>;
  clock: Clock;
  logger: Logger;
}

export function createReconciler(deps: ReconcilerDeps): Reconciler {
  /** What every source says of a user: what the planner knows of their memberships. */
  interface UserState {
    linked: boolean;
    members: MemberState[];
  }

  /** The user's states from every source; with `unlinked`, as if they had no links (comps still count). */
  async function userState(discordUserId: string, unlinked: boolean): Promise<UserState> {
    const { states, linked } = await deps.states.forUser(discordUserId, { ignoreLinks: unlinked });
    return { linked, members: states };
  }

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

  function tellMember(guild: GuildContext, discordUserId: string, members: readonly MemberState[]): void {
    try {
      deps.patronMessages?.afterApply(guild, discordUserId, members);
    } catch (error) {
      deps.logger.error({ err: error, guildId: guild.guildId, userId: discordUserId }, 'messages to the member could not be started');
    }
  }

  /** What a member's plan is made from: the guild, their link and snapshots, their roles now and our grants. */
  async function gather(guildId: string, discordUserId: string, options: ReconcileOptions, known?: UserState) {
    const [guild, { members, linked }, now, ledger] = await Promise.all([
      deps.contexts.load(guildId),
      known ?? userState(discordUserId, options.unlinkedReason !== undefined),
      deps.memberRoles.rolesOf(guildId, discordUserId),
      deps.ledger.forUser(guildId, discordUserId),
    ]);
    // A user no source knows (no link, no comp) loses what we granted for that reason.
    const unlinkedReason = options.unlinkedReason ?? (linked || members.length > 0 ? undefined : 'no linked membership');
    const pending = now === PENDING_MEMBER;
    const roleIds = pending ? null : now;
    return { guild, members, roleIds, pending, ledger, ...(unlinkedReason !== undefined ? { unlinkedReason } : {}) };
  }

  /** Gathers, plans and applies one member; the caller holds the member's lock. */
  async function reconcileHeld(
    guildId: string,
    discordUserId: string,
    options: ReconcileOptions,
    known?: UserState,
  ): Promise<MemberOutcome> {
    const { guild, members, roleIds, pending, ledger, unlinkedReason } = await gather(guildId, discordUserId, options, known);
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
    // After the roles: a message never holds up, nor fails, a role change.
    if (!options.dryRun && roleIds !== null) tellMember(guild, discordUserId, members);
    if (!options.dryRun && (members.length > 0 || ledger.length > 0)) {
      await deps.memberList?.present(guildId, discordUserId, null, deps.clock.now(), roleIds !== null || pending);
    }
    return { ...planned, guildId, userId: discordUserId, inGuild: roleIds !== null, pending, result };
  }

  /** `known`: the user's state when the caller just read it (one read for all their guilds). */
  function reconcileMember(guildId: string, discordUserId: string, options: ReconcileOptions, known?: UserState): Promise<MemberOutcome> {
    return deps.applier.withMember(guildId, discordUserId, () => reconcileHeld(guildId, discordUserId, options, known));
  }

  /**
   * The join page's last step (src/app/joining), for a linked user: someone not in the guild is
   * planned as holding no role (with the joiner role if no tier gives one) and added with those
   * roles in one request ({@link RoleApplier.join}); someone already in it, or found there by
   * Discord's 204, is reconciled as `/link` does. All under the member's lock, so the member event
   * the join fires waits for it and then finds nothing to do.
   */
  async function joinMember(guildId: string, discordUserId: string, admit: Admit): Promise<JoinOutcome> {
    const options: ReconcileOptions = { trigger: 'join' };
    return deps.applier.withMember(guildId, discordUserId, async () => {
      const { guild, members, roleIds, pending, ledger, unlinkedReason } = await gather(guildId, discordUserId, options);
      if (roleIds || pending) return { kind: 'already_member', outcome: await reconcileHeld(guildId, discordUserId, options) };
      const now = deps.clock.now();
      const planned = planUser({
        guild,
        userId: discordUserId,
        members,
        currentRoleIds: new Set(),
        ledger,
        now,
        joining: true,
        ...(unlinkedReason !== undefined ? { unlinkedReason } : {}),
      });
      const joined = await deps.applier.join(planned.plan, admit, { recordedBefore: new Set(ledger.map((e) => e.roleId)) });
      if (joined.kind === 'already_member')
        return { kind: 'already_member', outcome: await reconcileHeld(guildId, discordUserId, options) };
      if (joined.kind === 'pending') {
        // In the server with nothing given: the GUILD_MEMBER_UPDATE of their passing the screening gives the roles.
        const held: ApplyResult = { applied: [], failed: [], blocked: [] };
        return { kind: 'pending', outcome: { ...planned, guildId, userId: discordUserId, inGuild: false, pending: true, result: held } };
      }
      const outcome = {
        ...planned,
        guildId,
        userId: discordUserId,
        inGuild: joined.kind === 'added',
        pending: false,
        result: joined.result,
      };
      if (joined.kind === 'refused') return { kind: 'refused', problem: joined.problem, outcome };
      await scheduleGraceEnd(graceEndOf(guild, discordUserId, members, now));
      return { kind: 'added', outcome };
    });
  }

  /**
   * The guilds where a user's roles are at stake: those serving their campaigns (or the one server a
   * comp holds in), and those where we granted them roles (`granted`, read beside the state).
   */
  async function guildsFor(granted: readonly string[], state: UserState): Promise<string[]> {
    const guildIds = new Set(granted);
    const campaigns = [...new Set(state.members.flatMap((m) => (m.guildId ? [] : [m.campaignId])))];
    for (const member of state.members) if (member.guildId) guildIds.add(member.guildId);
    for (const serving of await Promise.all(campaigns.map((c) => deps.guilds.guildsOf(c)))) for (const g of serving) guildIds.add(g);
    return [...guildIds].sort();
  }

  return {
    reconcileMember: (guildId: string, discordUserId: string, options: ReconcileOptions) =>
      reconcileMember(guildId, discordUserId, options),

    joinMember,

    async memberLeft(guildId: string, discordUserId: string): Promise<void> {
      const memberList = deps.memberList;
      if (!memberList) return;
      const fence = deps.fences?.current() ?? null;
      await deps.applier.withMember(guildId, discordUserId, async () => {
        if (!(await memberList.left(guildId, discordUserId, deps.clock.now(), fence))) throw new LeaseLostError(fence!);
      });
    },

    async reconcileUser(discordUserId: string, options: ReconcileOptions & { alsoGuildIds?: readonly string[] }): Promise<MemberOutcome[]> {
      // Two reads that do not wait for each other: a round trip less before the first role change.
      const [state, granted] = await Promise.all([
        userState(discordUserId, options.unlinkedReason !== undefined),
        deps.ledger.guildsOfUser(discordUserId),
      ]);
      const guildIds = new Set([...(await guildsFor(granted, state)), ...(options.alsoGuildIds ?? [])]);
      const outcomes: MemberOutcome[] = [];
      const roles = deps.memberRoles;
      for (const guildId of [...guildIds].sort()) {
        const unseen = options.knownMembersOnly && roles.trusted?.(guildId) === true && roles.peek?.(guildId, discordUserId) === undefined;
        if (unseen) continue;
        outcomes.push(await reconcileMember(guildId, discordUserId, options, state));
      }
      return outcomes;
    },

    async reconcileExternal(source: string, externalId: string, options: ReconcileOptions): Promise<MemberOutcome[]> {
      const link = await deps.links.byExternal(source, externalId);
      if (!link) return [];
      return this.reconcileUser(link.discordUserId, options);
    },
  };
}

/**
 * The level-triggered heart of Tierlink (docs/architecture.md): every trigger (a link, a webhook, a rejoin, a
 * mapping change, an unlink) ends here. It gathers the current state of one member (link,
 * snapshots, ledger, roles in Discord), asks the pure planner, and applies the plan. Reconciling a
 * member twice changes nothing the second time, so duplicates and reordered triggers are harmless.
 */
export interface Reconciler {
  reconcileMember(guildId: string, discordUserId: string, options: ReconcileOptions): Promise<MemberOutcome>;
  joinMember(guildId: string, discordUserId: string, admit: Admit): Promise<JoinOutcome>;
  /**
   * A member left the server (GUILD_MEMBER_REMOVE): the Members page has them out of it at once,
   * and a full sync's listing under way does not put them back. Roles are not touched: Discord
   * drops a leaver's roles itself, and the ledger keeps Tierlink's grants for a rejoin. Under the
   * member's lock, so a reconcile that read them in the server writes before the leave, not after.
   * Throws {@link LeaseLostError} when the event's fence no longer holds (nothing written).
   */
  memberLeft(guildId: string, discordUserId: string): Promise<void>;
  /** Reconciles a Discord user in every guild where their roles are at stake (plus `alsoGuildIds`). */
  reconcileUser(discordUserId: string, options: ReconcileOptions & { alsoGuildIds?: readonly string[] }): Promise<MemberOutcome[]>;
  /** Reconciles the Discord user linked to a person on a source (`patreon`, `kofi`), if any. */
  reconcileExternal(source: string, externalId: string, options: ReconcileOptions): Promise<MemberOutcome[]>;
}
