import { managedRoleIds } from '../../core/planner';
import type { GuildContext, RoleChange } from '../../core/planner/types';
import { emptyGuildReport } from '../../core/empty-guild-report';
import type { Clock } from '../../shared/clock';
import type { GuildContextLoader } from './guild-context';
import type { GuildPass } from './guild-pass';

/** The roles strict mode acts on in a guild. */
export interface StrictScope {
  /** Roles Tierlink manages that strict mode removes from anyone not entitled. */
  enforced: Array<{ roleId: string; roleName: string }>;
  /** Roles Tierlink manages that strict mode leaves alone because they carry a dangerous permission. */
  spared: Array<{ roleId: string; roleName: string }>;
}

/** What turning strict mode on would remove now, before anyone confirms it. */
export interface StrictPreview extends StrictScope {
  /** Members who would lose at least one role. */
  members: number;
  /** Each role strict mode would take away, with how many members hold it without being entitled. */
  roles: Array<{ roleId: string; roleName: string; members: number }>;
  /** A few of those members (display names), for the person to recognise. */
  examples: string[];
  /** A page of members could not be read: the counts are a lower bound. */
  incomplete: boolean;
}

const EXAMPLES = 5;

export function createStrictPreview(deps: { contexts: GuildContextLoader; guildPass: GuildPass; clock: Clock }): StrictPreviewer {
  function scopeOf(guild: GuildContext): StrictScope {
    const scope: StrictScope = { enforced: [], spared: [] };
    for (const id of managedRoleIds(guild)) {
      const role = guild.roles.get(id);
      if (role) (role.dangerous ? scope.spared : scope.enforced).push({ roleId: role.id, roleName: role.name });
    }
    return scope;
  }

  /** The roles strict mode would act on in the guild, from its configuration only (no member is read). */
  async function scope(guildId: string): Promise<StrictScope> {
    return scopeOf(await deps.contexts.load(guildId));
  }

  async function preview(guildId: string): Promise<StrictPreview> {
    const context = await deps.contexts.load(guildId);
    const guild = { ...context, settings: { ...context.settings, strict: true } };
    const report = emptyGuildReport({
      runId: null,
      guildId,
      campaignIds: [...guild.campaignIds],
      startedAt: deps.clock.now().toISOString(),
    });
    // Grace ends found here are not scheduled: nothing of this plan is applied.
    const pending = await deps.guildPass.plan({ guild, campaigns: new Map(), pendingLinks: new Map(), graceEnds: [] }, report);
    const byRole = new Map<string, { roleId: string; roleName: string; members: number }>();
    const examples: string[] = [];
    let members = 0;
    for (const { plan, username } of pending) {
      const strict = plan.changes.filter((c): c is Extract<RoleChange, { op: 'remove' }> => c.op === 'remove' && c.basis === 'strict');
      if (strict.length === 0) continue;
      members += 1;
      if (examples.length < EXAMPLES) examples.push(username ?? plan.userId);
      for (const change of strict) {
        const line = byRole.get(change.roleId) ?? { roleId: change.roleId, roleName: change.roleName, members: 0 };
        line.members += 1;
        byRole.set(change.roleId, line);
      }
    }
    return {
      ...scopeOf(guild),
      members,
      roles: [...byRole.values()].sort((a, b) => b.members - a.members),
      examples,
      incomplete: report.errors.length > 0,
    };
  }

  return { scope, preview };
}

/**
 * Plans the guild as the full sync's guild pass does, with strict mode on and nothing applied, and
 * keeps only strict mode's own removals (roles held by hand that the ledger does not explain).
 * Reads the stored member snapshots, not the service, and writes nothing.
 */
export interface StrictPreviewer {
  scope(guildId: string): Promise<StrictScope>;
  preview(guildId: string): Promise<StrictPreview>;
}
