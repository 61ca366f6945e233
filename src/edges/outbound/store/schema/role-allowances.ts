import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

/**
 * Roles with dangerous permissions that the server's owner or an administrator allowed Tierlink to
 * give (`/allow-role`, the dashboard, or by naming the role in `/map` or `/settings`): per server
 * and role, the dangerous permissions allowed (a role that gains another one is held back again),
 * who allowed it and when. A role with dangerous permissions and no row is never granted
 * (src/core/authority.ts, `heldBack`). At most one row per role of a server.
 */
export const roleAllowances = pgTable(
  'role_allowances',
  {
    guildId: text('guild_id').notNull(),
    roleId: text('role_id').notNull(),
    /** The dangerous permission bits allowed, as Discord serialises permissions: a decimal string. */
    permissions: text('permissions').notNull(),
    allowedBy: text('allowed_by').notNull(),
    allowedAt: ts('allowed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.roleId] })],
);
