import { and, eq } from 'drizzle-orm';
import type { GuildMappingRow } from '../../../../core/planner/types';
import type { Db } from '../database';
import { roleMappings } from '../schema';

export type MappingRepository = ReturnType<typeof createMappingRepository>;

/** `/map` rows. */
export function createMappingRepository(db: Db) {
  return {
    async of(guildId: string): Promise<GuildMappingRow[]> {
      return db
        .select({ campaignId: roleMappings.campaignId, tierId: roleMappings.tierId, roleId: roleMappings.roleId })
        .from(roleMappings)
        .where(eq(roleMappings.guildId, guildId))
        .orderBy(roleMappings.createdAt);
    },

    /** Returns false when the mapping already existed. */
    async add(guildId: string, row: GuildMappingRow, createdBy: string): Promise<boolean> {
      const inserted = await db
        .insert(roleMappings)
        .values({ guildId, ...row, createdBy })
        .onConflictDoNothing()
        .returning();
      return inserted.length > 0;
    },

    /** Removes every mapping to a role (the role was deleted); returns how many there were. */
    async removeRole(guildId: string, roleId: string): Promise<number> {
      const deleted = await db
        .delete(roleMappings)
        .where(and(eq(roleMappings.guildId, guildId), eq(roleMappings.roleId, roleId)))
        .returning();
      return deleted.length;
    },

    /** Returns false when there was no such mapping. */
    async remove(guildId: string, row: GuildMappingRow): Promise<boolean> {
      const deleted = await db
        .delete(roleMappings)
        .where(
          and(
            eq(roleMappings.guildId, guildId),
            eq(roleMappings.campaignId, row.campaignId),
            eq(roleMappings.tierId, row.tierId),
            eq(roleMappings.roleId, row.roleId),
          ),
        )
        .returning();
      return deleted.length > 0;
    },
  };
}
