import type { Clock } from '../support/clock';
import { seededRandom } from './seeded-random';
import type { DiscordState } from './state';
import { SandboxUsageError } from './state';

export interface GenerateGuildOptions {
  guildId: string;
  members: number;
  seed: number;
  /** Chooses the user id of member `i`; by default ascending 18-digit ids derived from the seed. */
  userIdFor?: (index: number) => string;
  /** Gives each generated member `roleId` with probability `share` (0..1), drawn from the same seed. */
  roleShares?: Array<{ roleId: string; share: number }>;
}

export interface GeneratedGuild {
  userIds: string[];
}

const ADJECTIVES = ['amber', 'brisk', 'calm', 'dusky', 'eager', 'fuzzy', 'gentle', 'hazy', 'ivory', 'jolly', 'keen', 'lucky'];
const NOUNS = ['otter', 'falcon', 'maple', 'comet', 'heron', 'lynx', 'cedar', 'pebble', 'quartz', 'raven', 'sparrow', 'tulip'];

/**
 * Fills a guild with `members` members, deterministically for a seed, as if they had joined long ago:
 * no GUILD_MEMBER_ADD is dispatched (a connected client learns the count on its next GUILD_CREATE).
 * 30,000 members take well under a second.
 */
export function generateGuild(state: DiscordState, clock: Clock, options: GenerateGuildOptions): GeneratedGuild {
  const guild = state.requireGuild(options.guildId);
  if (!Number.isInteger(options.members) || options.members < 0) throw new SandboxUsageError('members must be a non-negative integer');
  for (const { roleId } of options.roleShares ?? []) {
    if (!guild.roles.has(roleId) || roleId === guild.id) throw new SandboxUsageError(`role ${roleId} cannot be handed out in ${guild.id}`);
  }
  const random = seededRandom(options.seed);
  // 18 digits, below the 19-digit snowflakes the sandbox mints today, so ids never collide.
  let nextId = 200_000_000_000_000_000n + BigInt(Math.floor(random() * 1e14)) * 1000n;
  const now = clock.now().getTime();
  const userIds: string[] = [];
  for (let i = 0; i < options.members; i += 1) {
    nextId += 1n + BigInt(Math.floor(random() * 1_000_000));
    const userId = options.userIdFor ? options.userIdFor(i) : nextId.toString();
    const username = `${ADJECTIVES[Math.floor(random() * ADJECTIVES.length)] ?? 'calm'}-${NOUNS[Math.floor(random() * NOUNS.length)] ?? 'otter'}-${i}`;
    const joinedAt = new Date(now - Math.floor(random() * 1_000 * 86_400_000));
    const roleIds = (options.roleShares ?? []).filter((s) => random() < s.share).map((s) => s.roleId);
    state.addMember(guild.id, { userId, username, roleIds, joinedAt }, true);
    userIds.push(userId);
  }
  return { userIds };
}
