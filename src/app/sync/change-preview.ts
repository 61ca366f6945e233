import { createHash } from 'node:crypto';
import type { GuildContext, RoleChange } from '../../core/planner/types';
import { emptyGuildReport } from '../../core/empty-guild-report';
import type { PlannedMember } from '../../core/sync-report';
import type { Clock } from '../../shared/clock';
import type { GuildContextLoader } from './guild-context';
import type { GuildPass } from './guild-pass';

/** One role a change would give or take, and to or from how many members. */
export interface RoleCount {
  roleId: string;
  roleName: string;
  members: number;
}

/** What a configuration change (a mapping, a setting) would do to members' roles, before anyone confirms it. */
export interface ChangePreview {
  /** Roles it would give, most members first. */
  gives: RoleCount[];
  /** Roles it would take away, most members first. */
  removes: RoleCount[];
  /** Members whose roles would change. */
  members: number;
  /** Role changes in all (a member given two roles counts two). */
  changes: number;
  /** A few of those members (display names), for the person to recognise. */
  examples: string[];
  /** A page of members could not be read: the counts are a lower bound. */
  incomplete: boolean;
  /**
   * Stands for exactly these changes to exactly these members: a confirmation made on one preview
   * applies only while a new preview gives the same fingerprint (nothing moved in between).
   */
  fingerprint: string;
}

const EXAMPLES = 5;

type Move = Extract<RoleChange, { op: 'add' | 'remove' }>;
const moves = (member: PlannedMember): Move[] => member.plan.changes.filter((c): c is Move => c.op === 'add' || c.op === 'remove');
const keyOf = (c: Move) => `${c.op}:${c.roleId}`;

/**
 * The dry run behind every "what would this do?" before a bulk change: plans the guild as the full
 * sync's guild pass does, once as it is configured and once with the change, over the stored member
 * snapshots (nothing is read from the services, nothing is applied or scheduled), and keeps the role
 * changes that only the change causes. A change the nightly sync would make anyway is not counted.
 * Strict mode's own preview (src/app/sync/strict-preview.ts) is the same dry run, kept for its
 * removals only.
 */
export function createChangePreview(deps: { contexts: GuildContextLoader; guildPass: GuildPass; clock: Clock }): ChangePreviewer {
  async function planOf(guild: GuildContext): Promise<{ members: PlannedMember[]; incomplete: boolean }> {
    const report = emptyGuildReport({
      runId: null,
      guildId: guild.guildId,
      campaignIds: [...guild.campaignIds],
      startedAt: deps.clock.now().toISOString(),
    });
    // Grace ends found here are not scheduled: nothing of this plan is applied.
    const members = await deps.guildPass.plan({ guild, campaigns: new Map(), pendingLinks: new Map(), graceEnds: [] }, report);
    return { members, incomplete: report.errors.length > 0 };
  }

  return {
    async preview(guildId: string, alter: (guild: GuildContext) => GuildContext): Promise<ChangePreview> {
      const current = await deps.contexts.load(guildId);
      const before = await planOf(current);
      const after = await planOf(alter(current));
      const already = new Map(before.members.map((m) => [m.plan.userId, new Set(moves(m).map(keyOf))]));
      const gives = new Map<string, RoleCount>();
      const removes = new Map<string, RoleCount>();
      const examples: string[] = [];
      const lines: string[] = [];
      let members = 0;
      let changes = 0;
      for (const member of after.members) {
        const anyway = already.get(member.plan.userId);
        const own = moves(member).filter((c) => !anyway?.has(keyOf(c)));
        if (own.length === 0) continue;
        members += 1;
        changes += own.length;
        if (examples.length < EXAMPLES) examples.push(member.username ?? member.plan.userId);
        for (const change of own) {
          const into = change.op === 'add' ? gives : removes;
          const line = into.get(change.roleId) ?? { roleId: change.roleId, roleName: change.roleName, members: 0 };
          line.members += 1;
          into.set(change.roleId, line);
          lines.push(`${member.plan.userId} ${keyOf(change)}`);
        }
      }
      const byCount = (a: RoleCount, b: RoleCount) => b.members - a.members || a.roleName.localeCompare(b.roleName);
      return {
        gives: [...gives.values()].sort(byCount),
        removes: [...removes.values()].sort(byCount),
        members,
        changes,
        examples,
        incomplete: before.incomplete || after.incomplete,
        fingerprint: createHash('sha256').update(lines.sort().join('\n')).digest('base64url').slice(0, 22),
      };
    },
  };
}

/** The dry run of a configuration change. */
export interface ChangePreviewer {
  /** `alter`: the guild's configuration as the change would leave it (a pure function of the current one). */
  preview(guildId: string, alter: (guild: GuildContext) => GuildContext): Promise<ChangePreview>;
}
