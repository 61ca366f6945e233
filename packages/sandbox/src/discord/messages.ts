import { ApiErrors } from './api-error';
import type { RouteDefinition, RouteResult } from './http-router';
import { Permission, hasPermission } from './permissions';
import type { CoreContext } from './rest-routes';
import { accessGuild } from './rest-routes';
import { channelJson, userJson } from './serialize';
import type { Json } from './serialize';
import type { ChannelRecord, GuildRecord } from './state';
import { ChannelType } from './state';
import type { SnowflakeFactory } from './snowflakes';
import type { PostedMessage } from './types';
import { Waiters } from './waiters';

/** Flags a bot may set on a new message: SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2 (docs/discord-api-notes.md §9). */
const SUPPRESS_EMBEDS = 1 << 2;
const SUPPRESS_NOTIFICATIONS = 1 << 12;
const IS_COMPONENTS_V2 = 1 << 15;
const SETTABLE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2;
/** How many messages the stand-in keeps per channel; older ones are forgotten. */
const KEPT_PER_CHANNEL = 10_000;
/** How long `enforce_nonce` remembers a nonce: "the past few minutes" (docs/discord-api-notes.md §9). */
const NONCE_WINDOW_MS = 5 * 60_000;

/** Embed limits, inclusive, counted on trimmed text (docs/discord-api-notes.md §9). */
const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
};

type AllowedParse = 'users' | 'roles' | 'everyone';
interface AllowedMentions {
  parse: AllowedParse[];
  users: string[];
  roles: string[];
}

function fail(path: string, code: string, message: string): never {
  throw ApiErrors.invalidFormBody(path, code, message);
}

function tooLong(path: string, max: number): never {
  fail(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
}

function length(text: string): number {
  return [...text.trim()].length;
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  return value as Record<string, unknown>;
}

function optionalText(value: unknown, path: string, max: number): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'string') fail(path, 'BASE_TYPE_STRING', 'Must be a string.');
  const n = length(value);
  if (n > max) tooLong(path, max);
  return n;
}

/** Validates the embeds and returns them as stored (`type` is always `rich`); 50035 on any limit. */
function validateEmbeds(raw: unknown): Json[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) fail('embeds', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
  if (raw.length > 10) tooLong('embeds', 10);
  let total = 0;
  const embeds = raw.map((value: unknown, i): Json => {
    const at = `embeds.${i}`;
    const embed = object(value, at);
    total += optionalText(embed.title, `${at}.title`, EMBED_LIMITS.title);
    total += optionalText(embed.description, `${at}.description`, EMBED_LIMITS.description);
    if (embed.footer !== undefined && embed.footer !== null) {
      total += optionalText(object(embed.footer, `${at}.footer`).text, `${at}.footer.text`, EMBED_LIMITS.footer);
    }
    if (embed.author !== undefined && embed.author !== null) {
      total += optionalText(object(embed.author, `${at}.author`).name, `${at}.author.name`, EMBED_LIMITS.author);
    }
    if (embed.fields !== undefined && embed.fields !== null) {
      if (!Array.isArray(embed.fields)) fail(`${at}.fields`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
      if (embed.fields.length > EMBED_LIMITS.fields) tooLong(`${at}.fields`, EMBED_LIMITS.fields);
      embed.fields.forEach((f: unknown, j) => {
        const fieldAt = `${at}.fields.${j}`;
        const fieldValue = object(f, fieldAt);
        for (const key of ['name', 'value'] as const) {
          if (typeof fieldValue[key] !== 'string' || length(fieldValue[key]) === 0)
            fail(`${fieldAt}.${key}`, 'BASE_TYPE_REQUIRED', 'This field is required');
        }
        total += optionalText(fieldValue.name, `${fieldAt}.name`, EMBED_LIMITS.fieldName);
        total += optionalText(fieldValue.value, `${fieldAt}.value`, EMBED_LIMITS.fieldValue);
      });
    }
    // `type`, `provider`, `video` and sizes are Discord's to set (docs/discord-api-notes.md §9).
    const { provider: _provider, video: _video, ...kept } = embed;
    return { ...kept, type: 'rich' };
  });
  if (total > EMBED_LIMITS.total) fail('embeds', 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${EMBED_LIMITS.total}`);
  return embeds;
}

function idList(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !/^\d{1,20}$/.test(v))) {
    fail(path, 'LIST_TYPE_CONVERT', 'Only iterables of snowflakes may be used in a ListType');
  }
  if (value.length > 100) tooLong(path, 100);
  return value as string[];
}

/**
 * `allowed_mentions` (docs/discord-api-notes.md §9): `parse` among users, roles, everyone; at most 100
 * ids each; `parse: ["users"]` with a `users` list (or roles with roles) is refused. Absent, a regular
 * message pings everything it mentions.
 */
function validateAllowedMentions(raw: unknown): AllowedMentions | null {
  if (raw === undefined || raw === null) return null;
  const value = object(raw, 'allowed_mentions');
  const parse: AllowedParse[] = [];
  if (value.parse !== undefined && value.parse !== null) {
    if (!Array.isArray(value.parse)) fail('allowed_mentions.parse', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    value.parse.forEach((p: unknown, i) => {
      if (p !== 'users' && p !== 'roles' && p !== 'everyone') {
        fail(`allowed_mentions.parse.${i}`, 'BASE_TYPE_CHOICES', "Value must be one of ('roles', 'users', 'everyone').");
      }
      parse.push(p);
    });
  }
  const users = idList(value.users, 'allowed_mentions.users');
  const roles = idList(value.roles, 'allowed_mentions.roles');
  for (const [kind, list] of [
    ['users', users],
    ['roles', roles],
  ] as const) {
    if (parse.includes(kind) && list.length > 0) {
      fail(
        'allowed_mentions',
        'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
      );
    }
  }
  return { parse, users, roles };
}

/** Who the message really pings, by the content's mentions, `allowed_mentions` and the bot's rights. */
function pings(
  content: string,
  allowed: AllowedMentions | null,
  guild: GuildRecord,
  mayMentionEveryone: boolean,
  knownUser: (id: string) => boolean,
): PostedMessage['mentions'] {
  const rules = allowed ?? { parse: ['users', 'roles', 'everyone'], users: [], roles: [] };
  const users = [...new Set([...content.matchAll(/<@!?(\d{17,20})>/g)].map((m) => m[1] ?? ''))].filter(
    (id) => knownUser(id) && (rules.parse.includes('users') || rules.users.includes(id)),
  );
  const roles = [...new Set([...content.matchAll(/<@&(\d{17,20})>/g)].map((m) => m[1] ?? ''))].filter((id) => {
    const role = guild.roles.get(id);
    // A role ping needs the role mentionable or the bot to hold Mention Everyone.
    return role !== undefined && (rules.parse.includes('roles') || rules.roles.includes(id)) && (role.mentionable || mayMentionEveryone);
  });
  const everyone = /@(everyone|here)/.test(content) && rules.parse.includes('everyone') && mayMentionEveryone;
  return { users, roles, everyone };
}

interface MessageListener {
  channelId: string;
  accepts: (message: PostedMessage) => boolean;
  resolve: (message: PostedMessage) => void;
}

export interface WaitForMessageOptions {
  where?: (message: PostedMessage) => boolean;
  timeoutMs?: number;
}

type Dispatch = (event: string, data: Record<string, unknown>, intent: number, guildId: string) => void;

/**
 * Channels' messages: `POST /channels/{id}/messages` as a mod-log or announcement sends it (docs/
 * discord-api-notes.md §9), with Discord's checks in this order: the channel (10003), the bot in the
 * guild and VIEW_CHANNEL (50001), a text channel (50008), SEND_MESSAGES (50013), the body (50035,
 * 50006), EMBED_LINKS for embeds (50013, as reported). Every posted message is kept for tests.
 */
export class MessageStore {
  private readonly byChannel = new Map<string, PostedMessage[]>();
  /** Direct-message channels: channel → the user, and each user's one channel with the bot. */
  private readonly dmRecipients = new Map<string, string>();
  private readonly dmChannelOf = new Map<string, string>();
  /** Users who take no direct message from the bot: a message to them is answered 50007. */
  private readonly closedDms = new Set<string>();
  private readonly listeners = new Set<MessageListener>();
  private readonly waiters = new Waiters();

  constructor(
    private readonly core: CoreContext,
    private readonly nextId: SnowflakeFactory,
    private readonly dispatch: Dispatch,
  ) {}

  messages(channelId: string): PostedMessage[] {
    this.core.state.requireChannel(channelId);
    return (this.byChannel.get(channelId) ?? []).map((m) => structuredClone(m));
  }

  /** The bot's direct messages to the user, oldest first (none when it never opened a DM channel with them). */
  directMessages(userId: string): PostedMessage[] {
    const channelId = this.dmChannelOf.get(userId);
    return channelId ? (this.byChannel.get(channelId) ?? []).map((m) => structuredClone(m)) : [];
  }

  /** Closes (or opens again) the user's direct messages to the bot: a message is then answered 403 50007, as Discord does. */
  setDirectMessagesClosed(userId: string, closed: boolean): void {
    if (closed) this.closedDms.add(userId);
    else this.closedDms.delete(userId);
  }

  /** `POST /users/@me/channels`: the one DM channel with the recipient, opened on first use (opening one to a closed user succeeds). */
  private openDm(rawBody: unknown): RouteResult {
    const body = object(rawBody ?? {}, '_');
    const recipient = body.recipient_id;
    if (typeof recipient !== 'string' || recipient === '') fail('recipient_id', 'BASE_TYPE_REQUIRED', 'This field is required');
    const user = this.core.state.users.get(recipient);
    if (!user) throw ApiErrors.invalidRecipients();
    let channelId = this.dmChannelOf.get(recipient);
    if (!channelId) {
      channelId = this.nextId();
      this.dmChannelOf.set(recipient, channelId);
      this.dmRecipients.set(channelId, recipient);
    }
    return { status: 200, body: { id: channelId, type: 1, last_message_id: null, flags: 0, recipients: [userJson(user)] } };
  }

  /** A message in a DM channel: 50007 when the user's DMs are closed; mentions ping nobody else. */
  private createDirect(channelId: string, recipient: string, rawBody: unknown): RouteResult {
    if (this.closedDms.has(recipient)) throw ApiErrors.cannotMessageUser();
    const body = object(rawBody ?? {}, '_');
    const content = body.content ?? null;
    if (content !== null) {
      if (typeof content !== 'string') fail('content', 'BASE_TYPE_STRING', 'Must be a string.');
      if ([...content].length > 2000) tooLong('content', 2000);
    }
    const embeds = validateEmbeds(body.embeds);
    validateAllowedMentions(body.allowed_mentions);
    if ((content === null || content === '') && embeds.length === 0) throw ApiErrors.emptyMessage();
    const message: PostedMessage = {
      id: this.nextId(),
      channelId,
      guildId: '',
      content: content ?? '',
      embeds,
      components: [],
      flags: 0,
      allowedMentions: body.allowed_mentions === undefined ? null : structuredClone(body.allowed_mentions as Record<string, unknown>),
      mentions: { users: [], roles: [], everyone: false },
      nonce: typeof body.nonce === 'string' || typeof body.nonce === 'number' ? String(body.nonce) : null,
      at: this.core.clock.now(),
    };
    const kept = this.byChannel.get(channelId) ?? [];
    kept.push(message);
    if (kept.length > KEPT_PER_CHANNEL) kept.shift();
    this.byChannel.set(channelId, kept);
    return { status: 200, body: this.json(message, false) };
  }

  waitForMessage(channelId: string, options: WaitForMessageOptions = {}): Promise<PostedMessage> {
    this.core.state.requireChannel(channelId);
    const accepts = options.where ?? (() => true);
    const existing = (this.byChannel.get(channelId) ?? []).find(accepts);
    if (existing) return Promise.resolve(structuredClone(existing));
    const timeoutMs = options.timeoutMs ?? 5_000;
    return this.waiters.wait(timeoutMs, `no matching message in channel ${channelId} within ${timeoutMs} ms`, (resolve) => {
      const listener: MessageListener = { channelId, accepts, resolve };
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    });
  }

  close(): void {
    this.waiters.cancelAll();
    this.listeners.clear();
  }

  private access(channelId: string): { guild: GuildRecord; channel: ChannelRecord } {
    const found = this.core.state.channel(channelId);
    if (!found) throw ApiErrors.unknownChannel();
    accessGuild(this.core, found.guild.id);
    return found;
  }

  private create(channelId: string, rawBody: unknown): RouteResult {
    const recipient = this.dmRecipients.get(channelId);
    if (recipient !== undefined) return this.createDirect(channelId, recipient, rawBody);
    const { state } = this.core;
    const { guild, channel } = this.access(channelId);
    const bits = state.channelPermissions(guild, channel, state.botUser.id);
    if (!hasPermission(bits, Permission.ViewChannel)) throw ApiErrors.missingAccess();
    if (channel.type === ChannelType.GuildCategory) throw ApiErrors.nonTextChannel();
    if (!hasPermission(bits, Permission.SendMessages)) throw ApiErrors.missingPermissions();

    const body = object(rawBody ?? {}, '_');
    const content = body.content ?? null;
    if (content !== null) {
      if (typeof content !== 'string') fail('content', 'BASE_TYPE_STRING', 'Must be a string.');
      if ([...content].length > 2000) tooLong('content', 2000);
    }
    const embeds = validateEmbeds(body.embeds);
    const allowed = validateAllowedMentions(body.allowed_mentions);
    const flags = body.flags ?? 0;
    if (typeof flags !== 'number' || !Number.isInteger(flags) || (flags & ~SETTABLE_FLAGS) !== 0)
      fail('flags', 'MESSAGE_FLAGS_INVALID', 'Invalid flags.');
    if ((flags & IS_COMPONENTS_V2) !== 0 && ((content !== null && content !== '') || embeds.length > 0)) {
      fail(
        'content',
        'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
        "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2",
      );
    }
    if (body.components !== undefined && body.components !== null && !Array.isArray(body.components)) {
      fail('components', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    }
    const nonce = body.nonce ?? null;
    if (
      nonce !== null &&
      !(typeof nonce === 'string' && [...nonce].length <= 25) &&
      !(typeof nonce === 'number' && Number.isInteger(nonce))
    ) {
      fail('nonce', 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
    }
    const components = Array.isArray(body.components) ? (body.components as unknown[]) : [];
    const hasSomething =
      (content !== null && content !== '') ||
      embeds.length > 0 ||
      components.length > 0 ||
      (Array.isArray(body.sticker_ids) && body.sticker_ids.length > 0) ||
      (body.poll !== undefined && body.poll !== null);
    if (!hasSomething) throw ApiErrors.emptyMessage();
    // Reported: embeds without EMBED_LINKS are refused with 50013 (docs/discord-api-notes.md §9).
    if (embeds.length > 0 && !hasPermission(bits, Permission.EmbedLinks)) throw ApiErrors.missingPermissions();

    const kept = this.byChannel.get(channelId) ?? [];
    const now = this.core.clock.now();
    if (body.enforce_nonce === true && nonce !== null) {
      const same = kept.find((m) => m.nonce === String(nonce) && now.getTime() - m.at.getTime() <= NONCE_WINDOW_MS);
      if (same) return { status: 200, body: this.json(same, false) };
    }
    const message: PostedMessage = {
      id: this.nextId(),
      channelId,
      guildId: guild.id,
      content: content ?? '',
      embeds,
      components,
      flags,
      allowedMentions: allowed === null ? null : structuredClone(body.allowed_mentions as Record<string, unknown>),
      mentions: pings(content ?? '', allowed, guild, hasPermission(bits, Permission.MentionEveryone), (id) => state.users.has(id)),
      nonce: nonce === null ? null : String(nonce),
      at: now,
    };
    kept.push(message);
    if (kept.length > KEPT_PER_CHANNEL) kept.shift();
    this.byChannel.set(channelId, kept);
    this.dispatch('MESSAGE_CREATE', this.json(message, true), 1 << 9, guild.id);
    for (const listener of [...this.listeners]) {
      if (listener.channelId === channelId && listener.accepts(message)) listener.resolve(structuredClone(message));
    }
    return { status: 200, body: this.json(message, false) };
  }

  private json(message: PostedMessage, withGuild: boolean): Json {
    const { state } = this.core;
    const body: Json = {
      id: message.id,
      type: 0,
      channel_id: message.channelId,
      author: userJson(state.botUser),
      content: message.content,
      timestamp: message.at.toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: message.mentions.everyone,
      mentions: message.mentions.users.flatMap((id) => {
        const user = state.users.get(id);
        return user ? [userJson(user)] : [];
      }),
      mention_roles: [...message.mentions.roles],
      attachments: [],
      embeds: message.embeds,
      components: message.components,
      pinned: false,
      flags: message.flags,
    };
    if (message.nonce !== null) body.nonce = message.nonce;
    if (withGuild) body.guild_id = message.guildId;
    return body;
  }

  routes(): RouteDefinition[] {
    const authed = { auth: 'bot', global: true } as const;
    return [
      {
        ...authed,
        method: 'POST',
        template: '/users/@me/channels',
        bucket: 'user-channels',
        major: [],
        handle: (ctx) => this.openDm(ctx.body),
      },
      {
        ...authed,
        method: 'POST',
        template: '/channels/:c/messages',
        bucket: 'channel-messages',
        major: ['c'],
        handle: (ctx) => this.create(ctx.params.c ?? '', ctx.body),
      },
      {
        ...authed,
        method: 'GET',
        template: '/channels/:c',
        bucket: 'channel',
        major: ['c'],
        handle: (ctx) => {
          const { guild, channel } = this.access(ctx.params.c ?? '');
          const bits = this.core.state.channelPermissions(guild, channel, this.core.state.botUser.id);
          if (!hasPermission(bits, Permission.ViewChannel)) throw ApiErrors.missingAccess();
          return { status: 200, body: channelJson(channel) };
        },
      },
      {
        ...authed,
        method: 'GET',
        template: '/guilds/:g/channels',
        bucket: 'channel',
        major: ['g'],
        handle: (ctx) => {
          const guild = accessGuild(this.core, ctx.params.g ?? '');
          return { status: 200, body: [...guild.channels.values()].map(channelJson) };
        },
      },
    ];
  }
}
