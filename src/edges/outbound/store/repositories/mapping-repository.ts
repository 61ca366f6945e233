import { and, eq } from 'drizzle-orm';
import type { GuildMappingRow } from '../../../../core/planner/types';
import type { Db } from '../database';
import { roleMappings } from '../schema';

/** `/map` rows. */
export interface MappingRepository {
  of(guildId: string): Promise<GuildMappingRow[]>;
  /** Returns false when the mapping already existed. */
  add(guildId: string, row: GuildMappingRow, createdBy: string): Promise<boolean>;
  /** Removes every mapping to a role (the role was deleted); returns how many there were. */
  removeRole(guildId: string, roleId: string): Promise<number>;
  /** Returns false when there was no such mapping. */
  remove(guildId: string, row: GuildMappingRow): Promise<boolean>;
}

export function createMappingRepository(db: Db): MappingRepository {
  return {
    async of(guildId: string): Promise<GuildMappingRow[]> {
      return db
        .select({ campaignId: roleMappings.campaignId, tierId: roleMappings.tierId, roleId: roleMappings.roleId })
        .from(roleMappings)
        .where(eq(roleMappings.guildId, guildId))
        .orderBy(roleMappings.createdAt);
    },

    async add(guildId: string, row: GuildMappingRow, createdBy: string): Promise<boolean> {
      const inserted = await db
        .insert(roleMappings)
        .values({ guildId, ...row, createdBy })
        .onConflictDoNothing()
        .returning();
      return inserted.length > 0;
    },

    async removeRole(guildId: string, roleId: string): Promise<number> {
      const deleted = await db
        .delete(roleMappings)
        .where(and(eq(roleMappings.guildId, guildId), eq(roleMappings.roleId, roleId)))
        .returning();
      return deleted.length;
    },

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
