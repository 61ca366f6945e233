/** Public shapes of the Discord sandbox: what tests, the demo and benchmarks read back. */

export interface RoleSnapshot {
  id: string;
  name: string;
  position: number;
  /** Permission bit set as Discord serialises it: a decimal string. */
  permissions: string;
  managed: boolean;
  color: number;
  hoist: boolean;
  mentionable: boolean;
  /** Set on a bot's own managed role. */
  botId?: string;
}

export interface UserSnapshot {
  id: string;
  username: string;
  globalName: string | null;
}

export interface MemberSnapshot {
  userId: string;
  username: string;
  roleIds: string[];
  joinedAt: Date;
  /** Not yet through the server's Membership Screening. */
  pending: boolean;
}

export interface ChannelSnapshot {
  id: string;
  guildId: string;
  name: string;
  /** 0 text, 2 voice, 4 category, 5 announcement. */
  type: number;
  parentId: string | null;
  /** Permission bit sets as decimal strings. */
  overwrites: Array<{ id: string; type: 'role' | 'member'; allow: string; deny: string }>;
}

export interface GuildSnapshot {
  id: string;
  name: string;
  ownerId: string;
  everyoneRoleId: string;
  botRoleId: string;
  channelId: string;
  memberCount: number;
  /** The member cap Add Guild Member enforces. */
  maxMembers: number;
  channels: ChannelSnapshot[];
  roles: RoleSnapshot[];
}

/**
 * How a member's role changed: our REST PUT/DELETE, a PATCH of the whole list, a moderator, or the
 * `roles` of an Add Guild Member call that brought the member in.
 */
export type RoleChangeVia = 'rest' | 'patch' | 'hand' | 'join';

export interface RoleEvent {
  at: Date;
  guildId: string;
  userId: string;
  roleId: string;
  op: 'add' | 'remove';
  via: RoleChangeVia;
  /** `X-Audit-Log-Reason`, URL-decoded; null when none was sent. */
  reason: string | null;
}

export interface RequestRecord {
  at: Date;
  method: string;
  /** Method plus route template, e.g. `PUT /guilds/:g/members/:u/roles/:r`; unmatched paths keep their raw path. */
  route: string;
  path: string;
  status: number;
  /** Decoded `X-Audit-Log-Reason`, when sent. */
  reason?: string;
}

/** Names of the per-route rate-limit buckets that {@link DiscordSandbox.setRateLimit} can tune. */
export type RateLimitRoute =
  | 'gateway'
  | 'user'
  | 'user-guilds'
  | 'user-channels'
  | 'application'
  | 'guild'
  | 'roles'
  | 'member'
  | 'members-list'
  | 'members-search'
  | 'member-role'
  | 'commands'
  | 'interaction-callback'
  | 'webhook'
  | 'oauth2'
  | 'bans'
  | 'channel'
  | 'channel-messages';

/** 429 answers of one route and scope so far (Discord's `X-RateLimit-Scope`: user, global or shared). */
export interface RateLimitHit {
  /** Method plus route template, as in {@link RequestRecord.route}. */
  route: string;
  scope: string;
  count: number;
}

export interface RateLimitSetting {
  route: RateLimitRoute | 'global';
  limit: number;
  windowMs: number;
  /** Why, when this goes above Discord's real limit for the route (required then, unless the stand-in was given `raisedLimits`). */
  raised?: string;
}

export interface FaultSpec {
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Route template without the method (`/guilds/:g/members/:u/roles/:r`) or a {@link RateLimitRoute}; any when absent. */
  route?: string;
  status: number;
  /** Discord JSON error code in the body; 0 when absent. */
  code?: number;
  message?: string;
  /** How many matching requests fail; 1 when absent. */
  times?: number;
  /** For 429: the `Retry-After` header (seconds) and body `retry_after`. */
  retryAfterSeconds?: number;
  /** For 429: a global limit (`X-RateLimit-Global`). */
  global?: boolean;
}

export type InteractionResponseKind = 'callback' | 'edit' | 'followup' | 'delete';

export interface InteractionResponseRecord {
  at: Date;
  kind: InteractionResponseKind;
  /** Interaction callback type for `callback` (4 reply, 5 deferred, 8 autocomplete result, …). */
  type?: number;
  /** The body's `data` for callbacks, the whole body for edits and follow-ups. */
  data: Record<string, unknown> | null;
  /** For edits and follow-ups: the message id (`@original` for the original response). */
  messageId?: string;
  /** True for deferred callbacks (types 5 and 6), which promise a later edit. */
  deferred: boolean;
  ephemeral: boolean;
}

/** How an injected interaction reached the app, and whether it was answered in time. */
export interface InteractionDelivery {
  /** Over the gateway (INTERACTION_CREATE), or POSTed to the Interactions Endpoint URL. */
  mode: 'gateway' | 'http';
  /** `dispatched` (gateway, not answered yet), `pending` (HTTP, under way), `answered`, or `failed`. */
  state: 'dispatched' | 'pending' | 'answered' | 'failed';
  /** HTTP mode: the status the endpoint answered. */
  httpStatus?: number;
  /** Why it failed: what a user would see as "This interaction failed". */
  error?: string;
}

export interface InjectCommandOptions {
  guildId: string;
  userId: string;
  name: string;
  options?: Array<Record<string, unknown>>;
  subcommand?: string;
  /** Member permissions in the channel (bit set); defaults to none beyond @everyone's. */
  memberPermissions?: bigint | string;
  /** Name of the option being typed: makes this an autocomplete interaction (type 4). */
  focused?: string;
  /** Resolved data; ROLE options get `resolved.roles` from the guild automatically. */
  resolved?: Record<string, unknown>;
  /** Locale of the user; `en-US` when absent. */
  locale?: string;
  /** Where the command is used; the guild's `#general` when absent. */
  channelId?: string;
}

/** A member presses a button on a message an interaction's response put up. */
export interface PressButtonOptions {
  /** The interaction whose original response (or follow-up `messageId`) carries the button. */
  interactionId: string;
  /** The button's `custom_id`. */
  customId: string;
  /** Who presses it; the user of `interactionId` when absent. Nobody else can see an ephemeral message. */
  userId?: string;
  /** A follow-up message of that interaction instead of its original response. */
  messageId?: string;
}

export interface InjectedInteraction {
  interactionId: string;
  token: string;
}

export interface StoredCommand {
  id: string;
  application_id: string;
  guild_id?: string;
  version: string;
  name: string;
  type: number;
  [key: string]: unknown;
}

/** A message the bot posted in a channel, as the stand-in recorded it. */
export interface PostedMessage {
  id: string;
  channelId: string;
  guildId: string;
  content: string;
  /** As stored: validated, `type: 'rich'`. */
  embeds: Array<Record<string, unknown>>;
  components: unknown[];
  flags: number;
  /** The request's `allowed_mentions` as sent; null when absent (Discord then pings everything mentioned). */
  allowedMentions: Record<string, unknown> | null;
  /** Who the message really pings, after `allowed_mentions` and the bot's right to mention roles and everyone. */
  mentions: { users: string[]; roles: string[]; everyone: boolean };
  nonce: string | null;
  at: Date;
}
