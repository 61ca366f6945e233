import { Permission, hasPermission } from '../../core/authority';
import { ChannelPermission, type ChannelRefusal, channelPermissions, checkCanPost } from '../../core/channel-access';
import type { ChannelWhy, SettingsProblem } from '../../core/settings-problem-text';
import {
  CHANNEL_SETTINGS,
  type ChannelChange,
  type ChannelSetting,
  type GuildChannels,
  applyChannelChange,
} from '../../core/guild-channels';
import type { ChannelMessages, GuildChannel } from '../../edges/outbound/discord/channel-messages';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { Clock } from '../../shared/clock';
import type { ChannelNote } from '../../core/post-source-text';
import type { PostSource } from '../channels';
import type { ActorView } from './actor-authority';

export interface ChannelSettingsDeps {
  guilds: Pick<GuildRepository, 'channels' | 'saveChannels' | 'campaignsOf'>;
  channels: Pick<ChannelMessages, 'getChannel' | 'listChannels'>;
  directory: Pick<GuildDirectory, 'getGuild' | 'botUserId'>;
  /** Starts a guild's mod-log from now (`ModLog.start` with the current audit horizon). */
  startModLog(guildId: string): Promise<void>;
  /** Where a campaign's posts come from (`Announcements.postSource`). */
  postSource(campaignId: string): Promise<PostSource>;
  clock: Clock;
}

/** A channel setting refused: its English sentence, and its facts for another language (src/core/settings-problem-text.ts). */
export interface ChannelCheck {
  /** The person may not choose Tierlink's channels. */
  notAllowed: SettingsProblem[];
  /** A channel Tierlink cannot post in, with what to change. */
  invalid: SettingsProblem[];
}

const SETTINGS = Object.keys(CHANNEL_SETTINGS) as ChannelSetting[];

export const channelKeys = (change: ChannelChange): ChannelSetting[] => SETTINGS.filter((k) => change[k] !== undefined);

/** Why Tierlink cannot post in a channel, as facts for another language. */
function channelWhy(refusal: ChannelRefusal, channel: string): ChannelWhy {
  if (refusal.code === 'not_in_guild') return { code: 'not_in_guild' };
  if (refusal.code === 'not_text') return { code: 'not_text', channel };
  return { code: 'cannot_post', channel, missing: refusal.missing ?? [] };
}

/**
 * The channels of `/settings` (the mod-log, new patrons, new posts). Choosing one needs Manage
 * Roles at guild level, as every setting does, read from Discord through the actor's view (never
 * the channel-level bits an interaction carries), and that the person sees the channel (View
 * Channel from its overwrites and their roles: nobody points Tierlink at a channel hidden from
 * them); and the bot must be able to post there: View
 * Channel, Send Messages and, for messages with embeds, Embed Links, computed from the channel's
 * permission overwrites (src/core/channel-access.ts).
 */
/** Whether the person asking has View Channel there, from the channel's overwrites and their own roles. */
function actorSees(view: ActorView, channel: GuildChannel): boolean {
  const bits = channelPermissions({
    guildId: view.actor.guildId,
    ownerId: view.ownerId,
    roles: view.snapshot.roles,
    memberId: view.actor.userId,
    memberRoleIds: view.memberRoleIds,
    overwrites: channel.overwrites,
  });
  return (bits & ChannelPermission.ViewChannel) !== 0n;
}

export function createChannelSettings(deps: ChannelSettingsDeps): ChannelSettings {
  async function check(view: ActorView, change: ChannelChange): Promise<ChannelCheck> {
    const keys = channelKeys(change);
    const out: ChannelCheck = { notAllowed: [], invalid: [] };
    if (keys.length === 0) return out;
    if (!hasPermission(view.authority, Permission.ManageRoles)) {
      out.notAllowed.push({
        text: 'You need the Manage Roles permission in this server to choose the channels Tierlink posts in. **Fix:** Ask the server owner or an administrator, or for a role with Manage Roles.',
        facts: { code: 'channels_need_manage_roles' },
      });
      return out;
    }
    const { guildId } = view.actor;
    const setTo = keys.filter((k) => change[k] !== null);
    if (setTo.length === 0) return out;
    const [guild, botId] = await Promise.all([deps.directory.getGuild(guildId), deps.directory.botUserId()]);
    for (const key of setTo) {
      const { label, embeds } = CHANNEL_SETTINGS[key];
      const channel: GuildChannel | null = await deps.channels.getChannel(change[key]!);
      if (channel && channel.guildId === guildId && !actorSees(view, channel)) {
        // Tierlink would post there what the person asking cannot read, and tell them nothing of
        // a channel they cannot see: refused as if it were not there for them.
        out.notAllowed.push({
          text: `The ${label} cannot be used: you cannot see that channel. **Fix:** Pick a channel you can see, or ask someone who can see it.`,
          facts: { code: 'channel_refused', setting: key, why: { code: 'hidden' } },
        });
        continue;
      }
      if (!channel || channel.guildId !== guildId) {
        out.invalid.push({
          text: `The ${label} cannot be used: Tierlink cannot see that channel. **Fix:** Allow View Channel for the Tierlink role in it, or pick another channel.`,
          facts: { code: 'channel_refused', setting: key, why: { code: 'unseen' } },
        });
        continue;
      }
      const verdict = checkCanPost(
        channel,
        {
          guildId,
          ownerId: guild.ownerId,
          roles: view.snapshot.roles,
          memberId: botId,
          memberRoleIds: view.snapshot.botRoleIds,
          overwrites: channel.overwrites,
        },
        { embeds },
      );
      if (!verdict.ok)
        out.invalid.push({
          text: `The ${label} cannot be used: ${verdict.error.message} **Fix:** ${verdict.error.fix}`,
          facts: { code: 'channel_refused', setting: key, why: channelWhy(verdict.error, channel.name) },
        });
    }
    return out;
  }

  /** Saves the change; answers the channels now and a note per announcement channel on where its news comes from. */
  async function save(
    guildId: string,
    before: GuildChannels,
    change: ChannelChange,
  ): Promise<{ channels: GuildChannels; notes: ChannelNote[] }> {
    const next = applyChannelChange(before, change, deps.clock.now());
    await deps.guilds.saveChannels(guildId, next);
    if (!before.modLogChannelId && next.modLogChannelId) await deps.startModLog(guildId);
    const notes: ChannelNote[] = [];
    if (change.announcePosts) {
      for (const campaignId of await deps.guilds.campaignsOf(guildId)) {
        const source = await deps.postSource(campaignId);
        const text =
          source.kind === 'none'
            ? `New posts cannot be announced yet: ${source.detail}. **Fix:** ${source.fix}`
            : `New posts: ${source.detail}.`;
        notes.push({ text, facts: source.facts });
      }
    }
    return { channels: next, notes };
  }

  return {
    check,
    save,
    current: (guildId: string) => deps.guilds.channels(guildId),
    async postable(guildId: string): Promise<GuildChannel[]> {
      return (await deps.channels.listChannels(guildId)).filter((c) => c.type === 0 || c.type === 5);
    },
  };
}

export interface ChannelSettings {
  check(view: ActorView, change: ChannelChange): Promise<ChannelCheck>;
  save(guildId: string, before: GuildChannels, change: ChannelChange): Promise<{ channels: GuildChannels; notes: ChannelNote[] }>;
  current(guildId: string): Promise<GuildChannels>;
  /** The guild's text and announcement channels, for the dashboard's choices. */
  postable(guildId: string): Promise<GuildChannel[]>;
}
