import { randomUUID } from 'node:crypto';
import { type PlanUserInput, adoptable, adoptions, decideUser, managedRoleIds, planUser } from '../../core/planner';
import type { GuildContext, LedgerEntry, MemberState } from '../../core/planner/types';
import type { GuildSyncReport, PlannedMember } from '../../core/sync-report';
import type { GuildDirectory, GuildMemberInfo } from '../../edges/outbound/discord/guild-directory';
import type { LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { MemberListRepository } from '../../edges/outbound/store/repositories/member-list-repository';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import { type KeySet, hash52, keySetBuilder } from '../../core/hash52';
import type { Clock } from '../../shared/clock';
import type { MemberStates } from '../membership/member-states';
import type { Logger } from '../../shared/logger';
import { type CampaignOutcome, describeError } from './campaign-pass';
import { type GraceEnd, graceEndFrom } from './grace-checks';

const NOT_LINKED = 'no linked membership';

/** Presence rows forgotten per statement after a complete listing. */
const FORGET_CHUNK = 1000;
/** The value of a presence row no listing wrote (a reconcile did): written again when a listing sees it. */
const UNLISTED = -1;

export interface GuildPassDeps {
  ledger: Pick<LedgerRepository, 'forUsers'>;
  /** Every source's member states (src/app/membership/member-states.ts). */
  states: Pick<MemberStates, 'forUsers'>;
  directory: Pick<GuildDirectory, 'listMembers'>;
  /** Who of the people a source knows is in the server (the Members page's "not in the server"). */
  memberList?: Pick<MemberListRepository, 'seen' | 'presence' | 'forget'>;
  clock: Clock;
  logger: Logger;
  /** Discord member page size, 1..1000; 1000 when absent. */
  pageSize?: number;
}

export interface GuildPassInput {
  guild: GuildContext;
  /** What the campaign pass read of each campaign the guild serves. */
  campaigns: ReadonlyMap<string, CampaignOutcome>;
  /** Patreon links a dry run would make (Discord user → Patreon user). */
  pendingLinks: ReadonlyMap<string, string>;
  /** Filled with the members planned inside a grace period, and when it ends (see `grace-checks.ts`). */
  graceEnds: GraceEnd[];
  /** When given: filled with the members with a declined payment, and their states (told after the apply, src/app/membership/patron-messages.ts). */
  declines?: Array<{ userId: string; members: MemberState[] }>;
  /** Also plan the roles linked members already hold that Tierlink would grant ({@link adoptions}). */
  adopt?: boolean;
  /** After each page, with the members read so far. */
  onPage?: (report: GuildSyncReport) => Promise<void>;
  /** When given: filled with the roles the listing shows for each of `guild.connectors`' members (src/app/sync/connector-refresh.ts). */
  connectorRoles?: Map<string, readonly string[]>;
}

export function createGuildPass(deps: GuildPassDeps): GuildPass {
  return {
    async plan(input: GuildPassInput, report: GuildSyncReport): Promise<PlannedMember[]> {
      const { guild, campaigns, pendingLinks } = input;
      const pending: PlannedMember[] = [];
      const managed = managedRoleIds(guild);
      const strict = guild.settings.strict;
      const now = deps.clock.now();
      // A member the campaign's complete listing no longer holds (its snapshot not deleted on a dry run).
      const stale = (state: MemberState): boolean =>
        state.source === PATREON && state.memberId !== null && state.readAt !== null
          ? (campaigns.get(state.campaignId)?.departed(state.memberId, state.readAt) ?? false)
          : false;
      const pendingBySource = new Map([[PATREON, pendingLinks]]);
      let complete = false;
      const listing = randomUUID();
      const memberList = deps.memberList;
      let present: KeySet | null = null;
      const connectorIds = input.connectorRoles && guild.connectors ? new Set(guild.connectors.map((c) => c.userId)) : null;
      try {
        if (memberList) present = await presenceOf(memberList, guild.guildId);
        const pages = deps.directory.listMembers(guild.guildId, deps.pageSize !== undefined ? { pageSize: deps.pageSize } : {});
        for await (const page of pages) {
          report.discord.pages += 1;
          report.discord.members += page.length;
          if (connectorIds) for (const m of page) if (connectorIds.has(m.userId)) input.connectorRoles!.set(m.userId, m.roleIds);
          const userIds = page.map((m) => m.userId);
          const [{ states, linked }, ledger] = await Promise.all([
            deps.states.forUsers(userIds, pendingLinks.size > 0 ? { pendingLinks: pendingBySource } : {}),
            deps.ledger.forUsers(guild.guildId, userIds) as Promise<ReadonlyMap<string, readonly LedgerEntry[]>>,
          ]);
          report.linkedMembers += linked.size;
          const todo = page.filter(
            (m: GuildMemberInfo) =>
              linked.has(m.userId) || states.has(m.userId) || ledger.has(m.userId) || (strict && m.roleIds.some((r) => managed.has(r))),
          );
          if (memberList && present) {
            // Only who is new to the presence, renamed, or last written by a reconcile: an idle sync writes none.
            const fresh: Array<{ userId: string; name: string }> = [];
            for (const m of todo) {
              const name = m.nick ?? m.globalName ?? m.username;
              const k = hash52(m.userId);
              present.mark(k);
              if (present.value(k) !== hash52(name)) fresh.push({ userId: m.userId, name });
            }
            await memberList.seen(guild.guildId, fresh, now, listing);
          }
          for (const m of todo) {
            // Behind the server's Membership Screening: nothing given until they accept its rules (a
            // role now would let them skip it); their passing it plans them, as a join does.
            if (m.pending === true) {
              report.pendingMembers = (report.pendingMembers ?? 0) + 1;
              continue;
            }
            const isLinked = linked.has(m.userId);
            const known = isLinked || states.has(m.userId);
            const members = (states.get(m.userId) ?? []).filter((state) => !stale(state));
            if (input.declines && members.some((state) => state.standing === 'payment_failed'))
              input.declines.push({ userId: m.userId, members });
            const roleIds = new Set(m.roleIds);
            const memberLedger = ledger.get(m.userId) ?? [];
            const planInput: PlanUserInput = {
              guild,
              userId: m.userId,
              members,
              currentRoleIds: roleIds,
              ledger: memberLedger,
              now,
              managed,
              ...(known ? {} : { unlinkedReason: NOT_LINKED }),
            };
            // Decided without the words; worded (the same planner) only when there is something to do.
            const decided = decideUser(planInput);
            const graceEnd = graceEndFrom(guild, m.userId, members, decided, now);
            if (graceEnd) input.graceEnds.push(graceEnd);
            report.usersPlanned += 1;
            const adopt = input.adopt === true && isLinked;
            if (
              decided.plan.changes.length > 0 ||
              decided.plan.blocked.length > 0 ||
              (adopt && adoptable(decided.desired, roleIds, memberLedger).length > 0)
            ) {
              const planned = planUser(planInput);
              const adopted = adopt ? adoptions(planned.desired, roleIds, memberLedger) : [];
              pending.push({
                plan: planned.plan,
                username: m.globalName ?? m.username,
                ...(adopted.length > 0 ? { adoptions: adopted } : {}),
              });
            }
          }
          await input.onPage?.(report);
        }
        complete = true;
      } catch (error) {
        const pages = report.discord.pages;
        report.errors.push(
          `reading the members of this server failed after ${pages} ${pages === 1 ? 'page' : 'pages'}: ${describeError(error)}`,
        );
        deps.logger.error(
          { err: error, guildId: guild.guildId, pages },
          'full sync: reading the server members failed; no role will be removed',
        );
      }
      if (complete && memberList && present) await forgetUnseen(memberList, guild.guildId, present, now);
      return pending;
    },
  };
}

/** Who the guild's presence holds, as 52-bit keys of their user ids, each with a key of their name ({@link UNLISTED}: no listing wrote it). */
async function presenceOf(memberList: Pick<MemberListRepository, 'presence'>, guildId: string): Promise<KeySet> {
  const set = keySetBuilder();
  for await (const chunk of memberList.presence(guildId)) {
    for (const row of chunk) set.add(hash52(row.userId), row.listed ? hash52(row.name ?? '') : UNLISTED);
  }
  return set.build();
}

/**
 * After a complete listing: the presence rows it did not see (the keys left unmarked) have left the
 * server. Only when some are left does it read the ids again, to name them.
 */
async function forgetUnseen(
  memberList: Pick<MemberListRepository, 'presence' | 'forget'>,
  guildId: string,
  present: KeySet,
  listingStart: Date,
): Promise<void> {
  if (present.unmarked() === 0) return;
  let gone: string[] = [];
  for await (const chunk of memberList.presence(guildId)) {
    for (const row of chunk) {
      const k = hash52(row.userId);
      if (present.has(k) && !present.marked(k)) gone.push(row.userId);
      if (gone.length === FORGET_CHUNK) {
        await memberList.forget(guildId, gone, listingStart);
        gone = [];
      }
    }
  }
  await memberList.forget(guildId, gone, listingStart);
}

/**
 * The guild pass of the full sync: one page of Discord members at a time; links, the ledger and
 * each source's states batch-loaded per page (a statement each); a member is planned when a source
 * knows them, when we granted them a role, or (strict) when they hold a managed role. Anyone else has nothing Tierlink
 * would change. Only members with something to do are kept, so memory grows with one page and with
 * the changes, not with the guild. A read error is pushed to the report's errors (which hold every
 * removal).
 */
export interface GuildPass {
  plan(input: GuildPassInput, report: GuildSyncReport): Promise<PlannedMember[]>;
}
