import type { GuildRepository } from '../db/repositories/guild-repository';
import type { LedgerRepository } from '../db/repositories/ledger-repository';
import type { LinkRepository } from '../db/repositories/link-repository';
import { type SnapshotRepository, toMemberState } from '../db/repositories/snapshot-repository';
import type { GuildDirectory } from '../discord/guild-directory';
import { type PlannedUser, planUser } from '../mapping';
import type { MemberState } from '../mapping/types';
import { createKeyedMutex } from '../shared/keyed-mutex';
import { type ApplyDeps, type ApplyResult, type Trigger, applyPlan } from './apply-plan';
import type { GuildContextLoader } from './guild-context';

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
  directory: GuildDirectory;
  apply: ApplyDeps;
}

/**
 * The level-triggered heart of Tierlink (DESIGN.md): every trigger (a link, a webhook, a rejoin, a
 * mapping change, an unlink) ends here. It gathers the current state of one member (link,
 * snapshots, ledger, roles in Discord), asks the pure planner, and applies the plan. Reconciling a
 * member twice changes nothing the second time, so duplicates and reordered triggers are harmless.
 */
export function createReconciler(deps: ReconcilerDeps) {
  const mutex = createKeyedMutex();

  async function membersOf(discordUserId: string): Promise<{ members: MemberState[]; linked: boolean }> {
    const link = await deps.links.byDiscordUser(discordUserId);
    if (!link) return { members: [], linked: false };
    const rows = await deps.snapshots.forPatreonUser(link.patreonUserId);
    return { members: rows.map(toMemberState), linked: true };
  }

  async function reconcileMember(guildId: string, discordUserId: string, options: ReconcileOptions): Promise<MemberOutcome> {
    return mutex.run(`${guildId}:${discordUserId}`, async () => {
      const [guild, { members, linked }, member, ledger] = await Promise.all([
        deps.contexts.load(guildId),
        options.unlinkedReason ? Promise.resolve({ members: [], linked: false }) : membersOf(discordUserId),
        deps.directory.getMember(guildId, discordUserId),
        deps.ledger.forUser(guildId, discordUserId),
      ]);
      const unlinkedReason = options.unlinkedReason ?? (linked ? undefined : 'no linked membership');
      const planned = planUser({
        guild,
        userId: discordUserId,
        members,
        currentRoleIds: member ? new Set(member.roleIds) : null,
        ledger,
        now: deps.apply.clock.now(),
        ...(unlinkedReason !== undefined ? { unlinkedReason } : {}),
      });
      const result = options.dryRun ? null : await applyPlan(deps.apply, planned.plan, options.trigger);
      return { ...planned, guildId, userId: discordUserId, inGuild: member !== null, result };
    });
  }

  /** The guilds where a user's roles are at stake: those serving their campaigns, and those where we granted them roles. */
  async function guildsFor(discordUserId: string): Promise<string[]> {
    const link = await deps.links.byDiscordUser(discordUserId);
    const guildIds = new Set(await deps.ledger.guildsOfUser(discordUserId));
    if (link) {
      for (const row of await deps.snapshots.forPatreonUser(link.patreonUserId)) {
        for (const guildId of await deps.guilds.guildsOf(row.campaignId)) guildIds.add(guildId);
      }
    }
    return [...guildIds].sort();
  }

  return {
    reconcileMember,

    /** Reconciles a Discord user in every guild where their roles are at stake (plus `alsoGuildIds`). */
    async reconcileUser(discordUserId: string, options: ReconcileOptions & { alsoGuildIds?: readonly string[] }): Promise<MemberOutcome[]> {
      const guildIds = new Set([...(await guildsFor(discordUserId)), ...(options.alsoGuildIds ?? [])]);
      const outcomes: MemberOutcome[] = [];
      for (const guildId of [...guildIds].sort()) outcomes.push(await reconcileMember(guildId, discordUserId, options));
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
