import { and, eq } from 'drizzle-orm';
import type { Db } from '../database';
import { roleAllowances } from '../schema';

/** The allowances of roles with dangerous permissions (src/edges/outbound/store/schema/role-allowances.ts). */
export interface RoleAllowanceRepository {
  of(guildId: string): Promise<RoleAllowance[]>;
  /** Allows the role with these dangerous permissions (replacing an earlier allowance of it). */
  allow(guildId: string, allowance: RoleAllowance): Promise<void>;
  /** Takes an allowance back (or forgets it, the role being deleted); false when there was none. */
  withdraw(guildId: string, roleId: string): Promise<boolean>;
}

/** A role the owner or an administrator allowed Tierlink to give despite its dangerous permissions. */
export interface RoleAllowance {
  roleId: string;
  /** The dangerous permission bits allowed. */
  permissions: bigint;
  allowedBy: string;
  allowedAt: Date;
}

export function createRoleAllowanceRepository(db: Db): RoleAllowanceRepository {
  return {
    async of(guildId: string): Promise<RoleAllowance[]> {
      const rows = await db.select().from(roleAllowances).where(eq(roleAllowances.guildId, guildId));
      return rows.map((r) => ({ roleId: r.roleId, permissions: BigInt(r.permissions), allowedBy: r.allowedBy, allowedAt: r.allowedAt }));
    },

    async allow(guildId: string, allowance: RoleAllowance): Promise<void> {
      const values = {
        guildId,
        roleId: allowance.roleId,
        permissions: allowance.permissions.toString(),
        allowedBy: allowance.allowedBy,
        allowedAt: allowance.allowedAt,
      };
      await db
        .insert(roleAllowances)
        .values(values)
        .onConflictDoUpdate({
          target: [roleAllowances.guildId, roleAllowances.roleId],
          set: { permissions: values.permissions, allowedBy: values.allowedBy, allowedAt: values.allowedAt },
        });
    },

    async withdraw(guildId: string, roleId: string): Promise<boolean> {
      const deleted = await db
        .delete(roleAllowances)
        .where(and(eq(roleAllowances.guildId, guildId), eq(roleAllowances.roleId, roleId)))
        .returning({ roleId: roleAllowances.roleId });
      return deleted.length > 0;
    },
  };
}
