import type { GuildContext } from '../../core/planner/types';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { DoctorCheck } from './doctor';
import { says, withSaid } from './doctor-says';

/**
 * Patreon's own Discord bot (docs/patreon-api-notes.md §8: not documented by Patreon, but the id
 * every public bot that works beside it uses).
 */
export const PATREON_BOT_USER_ID = '216303189073461248';

/** Unreadable members named in `/doctor` (all are counted). */
const LISTED = 3;

const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ') + ' UTC';

/**
 * Members of the guild's campaigns whose last read could not be understood: their roles are left
 * as they are until a read can be, which the creator should know. Null when there are none.
 */
export async function unreadableMembersCheck(
  snapshots: Pick<SnapshotRepository, 'unreadable'>,
  campaignIds: readonly string[],
): Promise<DoctorCheck | null> {
  const { total, members } = await snapshots.unreadable(campaignIds, LISTED);
  if (total === 0) return null;
  const named = members.map((m) => `member ${m.memberId} (${m.mark.attribute} ${m.mark.reason}, since ${minute(m.mark.since)})`);
  const more = total > members.length ? ` and ${total - members.length} more` : '';
  const namedSaid = members.map((m) =>
    says('doctorSays.unreadableMember', {
      id: m.memberId,
      attribute: m.mark.attribute,
      reason: m.mark.reason,
      since: minute(m.mark.since),
    }),
  );
  return withSaid(
    {
      name: 'Unreadable members',
      ok: false,
      detail:
        `Patreon answered ${total === 1 ? '1 member' : `${total} members`} with values Tierlink cannot read, so ` +
        `${total === 1 ? 'its' : 'their'} roles are left exactly as they are: ${named.join('; ')}${more}`,
      fix:
        'Nothing is lost: Tierlink reads them again at every sync and webhook and acts as soon as it can. ' +
        'If it stays, Patreon has added a value this version of Tierlink does not know: update Tierlink.',
    },
    says('doctorSays.unreadable', {
      count: total,
      members: { all: namedSaid },
      more: total > members.length ? says('doctorSays.andMore', { count: total - members.length }) : '',
    }),
    says('doctorSays.unreadableFix'),
  );
}

/**
 * Patreon's own bot in the server, beside tiers whose Discord roles (`discord_role_ids`, the
 * spec's `chat_role_ids`) Tierlink grants too: Patreon's bot manages those roles itself and
 * removes them from anyone it does not count as pledging, so the two bots undo each other. The
 * split: Patreon's integration links patrons' Discord accounts (what `social_connections` reads),
 * Tierlink manages the roles. Null when Patreon's bot is not a member.
 */
export async function patreonBotCheck(
  directory: Pick<GuildDirectory, 'getMember'>,
  guild: Pick<GuildContext, 'guildId' | 'tiers' | 'roles'>,
): Promise<DoctorCheck | null> {
  let present: boolean;
  try {
    present = (await directory.getMember(guild.guildId, PATREON_BOT_USER_ID)) !== null;
  } catch {
    return null; // Discord access is checked (and reported) on its own.
  }
  if (!present) return null;
  const shared = new Set<string>();
  for (const tier of guild.tiers) {
    if (tier.removed) continue;
    for (const roleId of tier.roleIds) {
      const role = guild.roles.get(roleId);
      if (role) shared.add(role.name);
    }
  }
  const name = 'Patreon’s Discord bot';
  if (shared.size === 0) {
    return withSaid(
      {
        name,
        ok: true,
        detail: 'Patreon’s own bot is in this server, but no tier sets a Discord role on Patreon, so it manages none of Tierlink’s roles',
        fix: null,
      },
      says('doctorSays.patreonBotIdle'),
      null,
    );
  }
  return withSaid(
    {
      name,
      ok: false,
      detail:
        `Patreon’s own bot is in this server and manages the Discord roles set on Patreon’s tiers (${[...shared].join(', ')}), ` +
        'which Tierlink grants too. It removes them from anyone it does not count as pledging, so it undoes Tierlink’s grace ' +
        'period, gifts, free trials and roles given by hand, and the two bots take turns.',
      fix:
        'Split the work: Patreon’s integration links patrons’ Discord accounts, Tierlink manages the roles. Map each tier to its ' +
        'role with /map, remove the Discord roles from the tiers on Patreon, then run /sync adopt:true so the roles patrons ' +
        'already hold become Tierlink’s (docs/guide.md: “Moving from Patreon’s own Discord integration”).',
    },
    says('doctorSays.patreonBot', { roles: [...shared].join(', ') }),
    says('doctorSays.patreonBotFix'),
  );
}
