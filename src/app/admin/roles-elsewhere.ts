import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';

/**
 * Where roles missing from a guild live instead: a tier's `chat_role_ids` (the production
 * service's `discord_role_ids`) are an unkeyed array of the roles of the campaign's own server, so
 * when one campaign serves several guilds (docs/architecture.md) every other guild sees ids it does not have.
 * That is expected there, not a problem to fix: the guild grants its own roles with `/map`. Role
 * ids are snowflakes, unique across Discord, so finding the id among another served guild's roles
 * tells "belongs to the other server" from "was deleted".
 *
 * Returns role id → the name of the guild that has it. A guild that cannot be read is skipped.
 */
export async function findRolesElsewhere(
  deps: { guilds: Pick<GuildRepository, 'guildsOf' | 'name'>; roleIdsOf(guildId: string): Promise<Iterable<string>> },
  guildId: string,
  campaignIds: readonly string[],
  missingRoleIds: Iterable<string>,
): Promise<Map<string, string>> {
  const wanted = new Set(missingRoleIds);
  const found = new Map<string, string>();
  if (wanted.size === 0) return found;
  const others = new Set<string>();
  for (const campaignId of campaignIds)
    for (const other of await deps.guilds.guildsOf(campaignId)) if (other !== guildId) others.add(other);
  for (const other of others) {
    let roleIds: Iterable<string>;
    try {
      roleIds = await deps.roleIdsOf(other);
    } catch {
      continue;
    }
    const here = [...roleIds].filter((id) => wanted.has(id) && !found.has(id));
    if (here.length === 0) continue;
    const name = (await deps.guilds.name(other)) ?? `server ${other}`;
    for (const id of here) found.set(id, name);
  }
  return found;
}
