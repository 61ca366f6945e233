import { and, asc, eq, inArray } from 'drizzle-orm';
import type { RuleRole } from '../../../../core/planner/types';
import type { Db } from '../database';
import { ruleRoles } from '../schema';

export function createRuleRoleRepository(db: Db): RuleRoleRepository {
  const toRule = (r: typeof ruleRoles.$inferSelect): RuleRole =>
    r.kind === 'tenure'
      ? { kind: 'tenure', roleId: r.roleId, months: r.threshold }
      : { kind: 'amount', roleId: r.roleId, cents: r.threshold };
  return {
    async of(guildId: string): Promise<RuleRole[]> {
      const rows = await db
        .select()
        .from(ruleRoles)
        .where(eq(ruleRoles.guildId, guildId))
        .orderBy(asc(ruleRoles.kind), asc(ruleRoles.threshold), asc(ruleRoles.roleId));
      return rows.map(toRule);
    },

    async set(guildId: string, rule: RuleRole, createdBy: string, now: Date): Promise<void> {
      const threshold = rule.kind === 'tenure' ? rule.months : rule.cents;
      await db
        .insert(ruleRoles)
        .values({ guildId, kind: rule.kind, threshold, roleId: rule.roleId, createdBy, createdAt: now })
        .onConflictDoUpdate({
          target: [ruleRoles.guildId, ruleRoles.kind, ruleRoles.roleId],
          set: { threshold, createdBy, createdAt: now },
        });
    },

    async removeRole(guildId: string, roleId: string): Promise<number> {
      const rows = await db
        .delete(ruleRoles)
        .where(and(eq(ruleRoles.guildId, guildId), eq(ruleRoles.roleId, roleId)))
        .returning({ roleId: ruleRoles.roleId });
      return rows.length;
    },

    async ofGuilds(guildIds: readonly string[]): Promise<Map<string, RuleRole[]>> {
      const out = new Map<string, RuleRole[]>();
      if (guildIds.length === 0) return out;
      const rows = await db
        .select()
        .from(ruleRoles)
        .where(inArray(ruleRoles.guildId, [...guildIds]));
      for (const r of rows) out.set(r.guildId, [...(out.get(r.guildId) ?? []), toRule(r)]);
      return out;
    },
  };
}

/** A server's roles by tenure (months) and by amount (cents a month), as the planner reads them. */
export interface RuleRoleRepository {
  of(guildId: string): Promise<RuleRole[]>;
  /** Sets a rule: a role's threshold of its kind (a role is given by one rule of each kind at most). */
  set(guildId: string, rule: RuleRole, createdBy: string, now: Date): Promise<void>;
  /** Removes every rule that gives `roleId` (a role deleted in Discord, or `remove_rule_role`); answers how many. */
  removeRole(guildId: string, roleId: string): Promise<number>;
  /** The rules of several servers (the guild contexts of a full sync). */
  ofGuilds(guildIds: readonly string[]): Promise<Map<string, RuleRole[]>>;
}
