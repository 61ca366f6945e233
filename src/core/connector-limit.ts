import type { GuildMappingRow, GuildTier, RoleProblem } from './planner/types';
import { type HierarchyRole, compareRolePositions } from './role-hierarchy';

/**
 * Why a role a campaign's tier names is held back: it is at or above the highest role of the
 * Administrator who connected the campaign (`connector`), or that role no longer exists (undefined).
 * Discord lets nobody but the owner give a role at or above their own highest role, Administrators
 * included (docs/discord-api-notes.md §7), and whoever connects a campaign chooses, through its
 * tiers on the service, which roles every patron gets. Null when the connector could give it.
 */
export function aboveConnector(
  role: Pick<HierarchyRole, 'id' | 'name' | 'position'>,
  connector: HierarchyRole | undefined,
): RoleProblem | null {
  if (connector && compareRolePositions(connector, role) > 0) return null;
  return {
    message: connector
      ? `${role.name} is held back: it is at or above ${connector.name}, the highest role of whoever connected this campaign, and ` +
        `Discord lets them give only roles below their own.`
      : `${role.name} is held back: the highest role of whoever connected this campaign no longer exists, so Tierlink cannot tell ` +
        `whether they could give it.`,
    fix:
      `The server owner, or someone whose highest role is above ${role.name}, can allow it with /allow-role role:@${role.name}, ` +
      `connect the campaign again with /connect, or map the role to the tier with /map; or choose a lower role for the tier on Patreon.`,
    facts: { code: 'above_connector', roleName: role.name, highestName: connector?.name ?? null },
  };
}

/**
 * The tiers with `held` set: the roles each names on the service (`roleIds`) that its campaign's
 * connector could not give ({@link aboveConnector}), unless a `/map` row names the same role for the
 * same tier, or the role is `allowed` (`/allow-role`): whoever did either passed Tierlink's own
 * authority check for that role. `connectorRoles`: each campaign's connector's highest role; a
 * campaign absent from it was connected by the owner or the operator, and its tiers are not limited.
 */
export function withConnectorLimits(
  tiers: readonly GuildTier[],
  mappings: readonly GuildMappingRow[],
  roles: readonly HierarchyRole[],
  connectorRoles: ReadonlyMap<string, string>,
  allowed: ReadonlySet<string> = new Set(),
): GuildTier[] {
  if (connectorRoles.size === 0) return [...tiers];
  const byId = new Map(roles.map((r) => [r.id, r]));
  return tiers.map((tier) => {
    const connectorRoleId = connectorRoles.get(tier.campaignId);
    if (connectorRoleId === undefined) return tier;
    const connector = byId.get(connectorRoleId);
    const held = new Map<string, RoleProblem>();
    for (const roleId of tier.roleIds) {
      const role = byId.get(roleId);
      if (!role || allowed.has(roleId)) continue;
      if (mappings.some((m) => m.campaignId === tier.campaignId && m.tierId === tier.tierId && m.roleId === roleId)) continue;
      const problem = aboveConnector(role, connector);
      if (problem) held.set(roleId, problem);
    }
    return held.size > 0 ? { ...tier, held } : tier;
  });
}
