import type { Result } from './result';
import { err, ok } from './result';

/** The channel permission bits a post needs (Discord's docs, Permissions; docs/discord-api-notes.md §7, §9). */
export const ChannelPermission = {
  Administrator: 1n << 3n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  EmbedLinks: 1n << 14n,
} as const;

/** Channel types a bot posts plain messages in: a text channel (0) and an announcement channel (5). */
export const POSTABLE_CHANNEL_TYPES: readonly number[] = [0, 5];

/** A permission overwrite as Discord serialises it: `type` 0 is a role (or @everyone: the guild id), 1 a member. */
export interface Overwrite {
  id: string;
  type: number;
  allow: string;
  deny: string;
}

/** What Discord's channel permission computation reads (docs/discord-api-notes.md §7, "Computing permissions"). */
export interface ChannelFacts {
  guildId: string;
  ownerId: string;
  /** Every role of the guild with its permission bits (@everyone's id is the guild id). */
  roles: ReadonlyArray<{ id: string; permissions: string }>;
  memberId: string;
  /** The member's roles, without @everyone. */
  memberRoleIds: readonly string[];
  overwrites: readonly Overwrite[];
}

const ALL = (1n << 64n) - 1n;

/**
 * A member's permissions in a channel: the guild-level bits (the owner and Administrator have
 * everything), then @everyone's overwrite, then the member's roles' overwrites together, then the
 * member's own; deny before allow at each stage. Without View Channel nothing else counts, and
 * without Send Messages neither does Embed Links (docs/discord-api-notes.md §7, implicit denies).
 */
export function channelPermissions(facts: ChannelFacts): bigint {
  if (facts.memberId === facts.ownerId) return ALL;
  const mine = new Set([...facts.memberRoleIds, facts.guildId]);
  let bits = 0n;
  for (const role of facts.roles) if (mine.has(role.id)) bits |= BigInt(role.permissions);
  if ((bits & ChannelPermission.Administrator) !== 0n) return ALL;
  const apply = (allow: bigint, deny: bigint) => {
    bits = (bits & ~deny) | allow;
  };
  const everyone = facts.overwrites.find((o) => o.type === 0 && o.id === facts.guildId);
  if (everyone) apply(BigInt(everyone.allow), BigInt(everyone.deny));
  let roleAllow = 0n;
  let roleDeny = 0n;
  for (const o of facts.overwrites) {
    if (o.type !== 0 || o.id === facts.guildId || !facts.memberRoleIds.includes(o.id)) continue;
    roleAllow |= BigInt(o.allow);
    roleDeny |= BigInt(o.deny);
  }
  apply(roleAllow, roleDeny);
  const own = facts.overwrites.find((o) => o.type === 1 && o.id === facts.memberId);
  if (own) apply(BigInt(own.allow), BigInt(own.deny));
  if ((bits & ChannelPermission.ViewChannel) === 0n) return 0n;
  if ((bits & ChannelPermission.SendMessages) === 0n) bits &= ~ChannelPermission.EmbedLinks;
  return bits;
}

/** Why Tierlink cannot post in a channel, and what to change. */
export interface ChannelRefusal {
  code: 'not_in_guild' | 'not_text' | 'cannot_post';
  message: string;
  fix: string;
  /** `cannot_post`: the permissions missing there, by their English names. */
  missing?: readonly string[];
}

export interface ChannelToCheck {
  id: string;
  name: string;
  guildId: string;
  type: number;
}

/**
 * Whether the bot can post Tierlink's messages in `channel`: a text or announcement channel of this
 * guild where it has View Channel, Send Messages and, when the messages carry embeds, Embed Links.
 */
export function checkCanPost(channel: ChannelToCheck, facts: ChannelFacts, options: { embeds: boolean }): Result<void, ChannelRefusal> {
  if (channel.guildId !== facts.guildId) {
    return err({
      code: 'not_in_guild',
      message: 'That channel is not in this server.',
      fix: 'Pick a channel of this server.',
    });
  }
  if (!POSTABLE_CHANNEL_TYPES.includes(channel.type)) {
    return err({
      code: 'not_text',
      message: `#${channel.name} is not a text channel, so Tierlink cannot post there.`,
      fix: 'Pick a text or announcement channel.',
    });
  }
  const bits = channelPermissions(facts);
  const needed: Array<[bigint, string]> = [
    [ChannelPermission.ViewChannel, 'View Channel'],
    [ChannelPermission.SendMessages, 'Send Messages'],
    ...(options.embeds ? ([[ChannelPermission.EmbedLinks, 'Embed Links']] as Array<[bigint, string]>) : []),
  ];
  const missing = needed.filter(([bit]) => (bits & bit) === 0n).map(([, name]) => name);
  if (missing.length === 0) return ok(undefined);
  return err({
    code: 'cannot_post',
    missing,
    message: `Tierlink cannot post in #${channel.name}: it lacks ${missing.join(', ')} there.`,
    fix: `In #${channel.name} → Edit Channel → Permissions, allow ${missing.join(', ')} for the Tierlink role (or for the bot), or pick another channel.`,
  });
}
