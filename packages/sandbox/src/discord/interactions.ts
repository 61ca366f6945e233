import { randomBytes } from 'node:crypto';
import { ApiErrors } from './api-error';
import type { RouteContext, RouteDefinition, RouteResult } from './http-router';
import { decodeSegment } from './http-router';
import type { InteractionsEndpoint } from './http-interactions';
import type { CoreContext } from './rest-routes';
import { channelJson, memberJson, roleJson, userJson } from './serialize';
import type { ChannelRecord, GuildRecord } from './state';
import { SandboxUsageError } from './state';
import type { SnowflakeFactory } from './snowflakes';
import type {
  InjectCommandOptions,
  InjectedInteraction,
  PressButtonOptions,
  InteractionDelivery,
  InteractionResponseKind,
  InteractionResponseRecord,
} from './types';
import { Waiters } from './waiters';

/** The first response must come within 3 s; the token then lives 15 min (Discord's docs, Receiving and Responding; docs/discord-api-notes.md §3). */
export const INITIAL_RESPONSE_MS = 3_000;
export const TOKEN_LIFETIME_MS = 15 * 60_000;

const EPHEMERAL = 64;
const LOADING = 128;
/** Message flags an interaction response may set: SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2. */
const ALLOWED_FLAGS = 4 | EPHEMERAL | 4096 | 32768;

interface MessageRecord {
  id: string;
  type: number;
  content: string;
  embeds: unknown[];
  components: unknown[];
  flags: number;
  createdAt: Date;
  editedAt: Date | null;
}

interface InteractionRecord {
  id: string;
  token: string;
  /** 2 application command, 3 message component, 4 autocomplete. */
  type: 2 | 3 | 4;
  guildId: string;
  channelId: string;
  userId: string;
  commandName: string;
  createdAt: Date;
  callbackType: number | null;
  original: MessageRecord | null;
  followups: Map<string, MessageRecord>;
  responses: InteractionResponseRecord[];
  delivery: InteractionDelivery;
  /** For a component interaction: the message the component is on (its `@original` after a type 6 or 7 answer). */
  componentMessage?: MessageRecord;
}

interface Listener {
  interactionId: string;
  accepts: (record: InteractionResponseRecord) => boolean;
  resolve: (record: InteractionResponseRecord) => void;
  reject: (error: Error) => void;
}

export interface WaitForResponseOptions {
  /** Wait for a non-deferred callback, an edit or a follow-up, skipping a deferral. */
  final?: boolean;
  /** Wait for a response of this kind only. */
  kind?: InteractionResponseKind;
  /** Wait for a response this accepts too (e.g. an edit whose content reads a certain way). */
  where?: (record: InteractionResponseRecord) => boolean;
  timeoutMs?: number;
}

type Dispatch = (event: string, data: Record<string, unknown>, guildId: string) => number;

function isFinal(record: InteractionResponseRecord): boolean {
  return record.kind === 'edit' || record.kind === 'followup' || (record.kind === 'callback' && !record.deferred);
}

function asObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ApiErrors.invalidFormBody(field, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  }
  return value as Record<string, unknown>;
}

/** Message fields Discord validates on interaction responses, edits and follow-ups. */
function validateMessage(data: Record<string, unknown>, prefix: string, requireContent: boolean): void {
  const { content, embeds, components, flags } = data;
  if (content !== undefined && content !== null) {
    if (typeof content !== 'string') throw ApiErrors.invalidFormBody(`${prefix}content`, 'BASE_TYPE_STRING', 'Must be a string.');
    if ([...content].length > 2000)
      throw ApiErrors.invalidFormBody(`${prefix}content`, 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  }
  if (embeds !== undefined && embeds !== null) {
    if (!Array.isArray(embeds))
      throw ApiErrors.invalidFormBody(`${prefix}embeds`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    if (embeds.length > 10) throw ApiErrors.invalidFormBody(`${prefix}embeds`, 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  }
  if (components !== undefined && components !== null && !Array.isArray(components)) {
    throw ApiErrors.invalidFormBody(`${prefix}components`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
  }
  if (flags !== undefined && flags !== null) {
    if (typeof flags !== 'number' || !Number.isInteger(flags) || (flags & ~ALLOWED_FLAGS) !== 0) {
      throw ApiErrors.invalidFormBody(`${prefix}flags`, 'MESSAGE_FLAGS_INVALID', 'Invalid flags.');
    }
  }
  if (requireContent) {
    const hasContent = typeof content === 'string' && content.length > 0;
    const hasEmbeds = Array.isArray(embeds) && embeds.length > 0;
    const hasComponents = Array.isArray(components) && components.length > 0;
    const hasPoll = data.poll !== undefined && data.poll !== null;
    if (!hasContent && !hasEmbeds && !hasComponents && !hasPoll) throw ApiErrors.emptyMessage();
  }
}

function validateChoices(data: Record<string, unknown>): void {
  const { choices } = data;
  if (!Array.isArray(choices)) throw ApiErrors.invalidFormBody('data.choices', 'BASE_TYPE_REQUIRED', 'This field is required');
  if (choices.length > 25) throw ApiErrors.invalidFormBody('data.choices', 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.');
  choices.forEach((choice: unknown, i) => {
    const c = asObject(choice, `data.choices.${i}`);
    if (typeof c.name !== 'string' || c.name.length < 1 || c.name.length > 100) {
      throw ApiErrors.invalidFormBody(`data.choices.${i}.name`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    const okValue = (typeof c.value === 'string' && c.value.length <= 100) || typeof c.value === 'number';
    if (!okValue)
      throw ApiErrors.invalidFormBody(`data.choices.${i}.value`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  });
}

/**
 * Interactions: what `injectCommand` delivers, over the gateway or, when the application has an
 * Interactions Endpoint URL, by a signed POST to it and never both ("mutually exclusive",
 * docs/discord-api-notes.md §3); and the callback and webhook routes the bot answers through.
 * Everything a bot sends back is recorded in order for tests to read.
 */
export class InteractionStore {
  private readonly byId = new Map<string, InteractionRecord>();
  private readonly byToken = new Map<string, InteractionRecord>();
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Waiters();
  /** HTTP deliveries under way and 202s waiting for their callback, ended on close. */
  private readonly inFlight = new Set<AbortController>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly core: CoreContext,
    private readonly nextId: SnowflakeFactory,
    private readonly dispatch: Dispatch,
    private readonly commandIdFor: (guildId: string, name: string) => string | undefined,
    private readonly endpoint: InteractionsEndpoint,
  ) {}

  inject(options: InjectCommandOptions): InjectedInteraction {
    const { state } = this.core;
    const guild = state.requireGuild(options.guildId);
    const member = guild.members.get(options.userId);
    const user = state.users.get(options.userId);
    if (!member || !user) throw new SandboxUsageError(`user ${options.userId} is not a member of ${options.guildId}`);

    const leafOptions = (options.options ?? []).map((o) => ({ ...o }));
    const type: 2 | 4 = options.focused !== undefined ? 4 : 2;
    if (options.focused !== undefined) {
      const focused = leafOptions.find((o) => o.name === options.focused);
      if (!focused) throw new SandboxUsageError(`focused option ${options.focused} is not among the options`);
      focused.focused = true;
    }
    const topOptions = options.subcommand ? [{ name: options.subcommand, type: 1, options: leafOptions }] : leafOptions;
    const resolved = { ...this.resolveOptions(guild, leafOptions, options.userId), ...(options.resolved ?? {}) };

    const id = this.nextId();
    const token = `sandbox.${id}.${randomBytes(24).toString('base64url')}`;
    const channel = guild.channels.get(options.channelId ?? guild.channelId);
    if (!channel) throw new SandboxUsageError(`no channel ${options.channelId ?? ''} in ${guild.id}`);
    // Channel-level, overwrites included, for the user and for the app (docs/discord-api-notes.md §8).
    const permissions = options.memberPermissions ?? state.channelPermissions(guild, channel, user.id);
    const data: Record<string, unknown> = {
      id: this.commandIdFor(guild.id, options.name) ?? this.nextId(),
      name: options.name,
      type: 1,
      guild_id: guild.id,
    };
    if (topOptions.length > 0) data.options = topOptions;
    if (Object.keys(resolved).length > 0) data.resolved = resolved;

    const record: InteractionRecord = {
      id,
      token,
      type,
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      commandName: options.name,
      createdAt: this.core.clock.now(),
      callbackType: null,
      original: null,
      followups: new Map(),
      responses: [],
      delivery: { mode: this.endpoint.url === null ? 'gateway' : 'http', state: this.endpoint.url === null ? 'dispatched' : 'pending' },
    };

    const payload = this.payload(record, guild, channel, permissions);
    if (options.locale) payload.locale = options.locale;
    payload.member = { ...memberJson(member, user), permissions: String(permissions) };
    payload.data = data;
    this.deliver(record, payload);
    return { interactionId: id, token };
  }

  /**
   * A member presses a button (a message component interaction, type 3): Discord delivers it only
   * for a button that is on the message, and an ephemeral message is seen, so pressed, only by the
   * user it was sent to. The answer may update that message (6 deferred, 7 at once) or reply anew.
   */
  pressButton(options: PressButtonOptions): InjectedInteraction {
    const source = this.byId.get(options.interactionId);
    if (!source) throw new SandboxUsageError(`no interaction ${options.interactionId}`);
    const message = options.messageId ? source.followups.get(options.messageId) : source.original;
    if (!message) throw new SandboxUsageError(`interaction ${source.id} has no such message to press a button on`);
    const buttons = (message.components as Array<{ components?: Array<Record<string, unknown>> }>).flatMap((row) => row.components ?? []);
    const button = buttons.find((c) => c.type === 2 && c.custom_id === options.customId);
    if (!button) throw new SandboxUsageError(`no button ${options.customId} on message ${message.id}`);
    if (button.disabled === true) throw new SandboxUsageError(`button ${options.customId} is disabled`);
    const userId = options.userId ?? source.userId;
    if ((message.flags & EPHEMERAL) !== 0 && userId !== source.userId) {
      throw new SandboxUsageError('an ephemeral message is seen only by the user it was sent to; nobody else can press its buttons');
    }
    const { state } = this.core;
    const guild = state.requireGuild(source.guildId);
    const member = guild.members.get(userId);
    const user = state.users.get(userId);
    if (!member || !user) throw new SandboxUsageError(`user ${userId} is not a member of ${guild.id}`);
    const channel = guild.channels.get(source.channelId);
    if (!channel) throw new SandboxUsageError(`the channel of interaction ${source.id} is gone`);
    const permissions = state.channelPermissions(guild, channel, user.id);
    const id = this.nextId();
    const record: InteractionRecord = {
      id,
      token: `sandbox.${id}.${randomBytes(24).toString('base64url')}`,
      type: 3,
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      commandName: source.commandName,
      createdAt: this.core.clock.now(),
      callbackType: null,
      original: null,
      followups: new Map(),
      responses: [],
      delivery: { mode: this.endpoint.url === null ? 'gateway' : 'http', state: this.endpoint.url === null ? 'dispatched' : 'pending' },
      componentMessage: message,
    };
    const payload = this.payload(record, guild, channel, permissions);
    payload.member = { ...memberJson(member, user), permissions: String(permissions) };
    payload.data = { custom_id: options.customId, component_type: 2 };
    payload.message = this.messageJson(source, message);
    this.deliver(record, payload);
    return { interactionId: id, token: record.token };
  }

  /** What every interaction payload carries besides `data`, `member` and (components) `message`. */
  private payload(
    record: InteractionRecord,
    guild: GuildRecord,
    channel: ChannelRecord,
    permissions: bigint | string,
  ): Record<string, unknown> {
    const { state } = this.core;
    return {
      id: record.id,
      application_id: this.core.applicationId,
      type: record.type,
      token: record.token,
      version: 1,
      guild_id: guild.id,
      guild: { id: guild.id, locale: 'en-US', features: [] },
      guild_locale: 'en-US',
      channel_id: channel.id,
      channel: { id: channel.id, type: channel.type, guild_id: guild.id, name: channel.name, permissions: String(permissions), flags: 0 },
      locale: 'en-US',
      entitlements: [],
      context: 0,
      authorizing_integration_owners: { 0: guild.id },
      app_permissions: state.channelPermissions(guild, channel, state.botUser.id).toString(),
      attachment_size_limit: 10_485_760,
    };
  }

  /** Over the gateway, or by a signed POST when an Interactions Endpoint URL is set. */
  private deliver(record: InteractionRecord, payload: Record<string, unknown>): void {
    if (record.delivery.mode === 'http') {
      this.remember(record);
      this.deliverOverHttp(record, payload);
    } else {
      if (this.dispatch('INTERACTION_CREATE', payload, record.guildId) === 0) {
        throw new SandboxUsageError("no identified gateway connection (on the guild's shard) to receive the interaction");
      }
      this.remember(record);
    }
  }

  private remember(record: InteractionRecord): void {
    this.byId.set(record.id, record);
    this.byToken.set(record.token, record);
  }

  delivery(interactionId: string): InteractionDelivery {
    const record = this.byId.get(interactionId);
    if (!record) throw new SandboxUsageError(`no interaction ${interactionId}`);
    return { ...record.delivery };
  }

  /**
   * Discord's side of an HTTP interaction: the signed POST, then the answer read as the interaction
   * response (200 with type 4, 5, 8 or 9 as JSON), or as a promise that the callback endpoint was or
   * will be used (202, empty), within the 3 s window. Anything else fails the interaction, as the
   * user would see "This interaction failed", and its token stops working.
   */
  private deliverOverHttp(record: InteractionRecord, payload: Record<string, unknown>): void {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const started = Date.now();
    void this.endpoint
      .post(JSON.stringify(payload), { signal: controller.signal })
      .then(
        (answer) => {
          // Closed while the answer was on its way: no callback window (and no timer) after close.
          if (controller.signal.aborted) return;
          record.delivery.httpStatus = answer.status;
          if (record.delivery.state === 'failed') return;
          if (this.core.clock.now().getTime() - record.createdAt.getTime() > INITIAL_RESPONSE_MS) {
            this.fail(record, 'the endpoint answered after the 3 s window');
          } else if (answer.status === 202) {
            if (answer.text !== '') this.fail(record, 'a 202 must have no body');
            else if (record.callbackType !== null) record.delivery.state = 'answered';
            else this.awaitCallback(record, this.endpoint.timeoutMs - (Date.now() - started));
          } else if (answer.status === 200) {
            this.answerInline(record, answer.contentType, answer.text);
          } else {
            this.fail(record, `the endpoint answered ${answer.status}`);
          }
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          // DOMException is not an Error of this realm under jest: read its name.
          const name = (error as { name?: unknown } | null)?.name;
          const timedOut = name === 'TimeoutError' || name === 'AbortError';
          this.fail(record, timedOut ? `no answer within ${this.endpoint.timeoutMs} ms` : `the request failed: ${String(error)}`);
        },
      )
      .finally(() => this.inFlight.delete(controller));
  }

  private answerInline(record: InteractionRecord, contentType: string, text: string): void {
    if (record.callbackType !== null) {
      this.fail(record, 'answered 200 with a body although the callback endpoint acknowledged it: Discord expects 202 then');
      return;
    }
    if (!contentType.startsWith('application/json')) {
      this.fail(record, `the response's Content-Type is "${contentType}", not application/json`);
      return;
    }
    try {
      this.acknowledge(record, asObject(JSON.parse(text) as unknown, '_'), false);
      record.delivery.state = 'answered';
    } catch (error) {
      this.fail(record, `the response is not a valid interaction response: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** After a 202: the callback must have come, or come before the window closes. */
  private awaitCallback(record: InteractionRecord, remainingMs: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (record.callbackType === null && record.delivery.state === 'pending')
          this.fail(record, 'answered 202 but never used the callback endpoint');
        else if (record.delivery.state === 'pending') record.delivery.state = 'answered';
      },
      Math.max(0, remainingMs),
    );
    this.timers.add(timer);
  }

  private fail(record: InteractionRecord, reason: string): void {
    if (record.delivery.state === 'failed') return;
    record.delivery.state = 'failed';
    record.delivery.error = reason;
    for (const listener of [...this.listeners]) {
      if (listener.interactionId === record.id) listener.reject(new Error(`interaction ${record.id} failed: ${reason}`));
    }
  }

  private resolveOptions(guild: GuildRecord, options: Array<Record<string, unknown>>, invokerId: string): Record<string, unknown> {
    const roles: Record<string, unknown> = {};
    const users: Record<string, unknown> = {};
    const members: Record<string, unknown> = {};
    const channels: Record<string, unknown> = {};
    for (const option of options) {
      const value = typeof option.value === 'string' ? option.value : undefined;
      if (value === undefined || option.focused) continue;
      if (option.type === 7) {
        // A channel option resolves to a partial channel with the invoker's permissions in it (Discord's docs, Interactions, resolved data).
        const channel = guild.channels.get(value);
        if (!channel) throw new SandboxUsageError(`channel option ${String(option.name)} names no channel of the guild`);
        const { id, name, type, parent_id: parentId } = channelJson(channel) as Record<string, unknown>;
        channels[value] = {
          id,
          name,
          type,
          parent_id: parentId ?? null,
          permissions: this.core.state.channelPermissions(guild, channel, invokerId).toString(),
        };
      }
      if (option.type === 8 || option.type === 9) {
        const role = guild.roles.get(value);
        if (role) roles[value] = roleJson(role);
        else if (option.type === 8) throw new SandboxUsageError(`role option ${String(option.name)} names no role of the guild`);
      }
      if (option.type === 6 || (option.type === 9 && !guild.roles.has(value))) {
        const user = this.core.state.users.get(value);
        if (!user) throw new SandboxUsageError(`user option ${String(option.name)} names no known user`);
        users[value] = userJson(user);
        const member = guild.members.get(value);
        if (member) {
          const { user: _user, deaf: _deaf, mute: _mute, ...rest } = memberJson(member, user);
          members[value] = { ...rest, permissions: this.core.state.memberPermissions(guild, value).toString() };
        }
      }
    }
    const resolved: Record<string, unknown> = {};
    if (Object.keys(roles).length > 0) resolved.roles = roles;
    if (Object.keys(users).length > 0) resolved.users = users;
    if (Object.keys(members).length > 0) resolved.members = members;
    if (Object.keys(channels).length > 0) resolved.channels = channels;
    return resolved;
  }

  responses(interactionId: string): InteractionResponseRecord[] {
    const record = this.byId.get(interactionId);
    if (!record) throw new SandboxUsageError(`no interaction ${interactionId}`);
    return record.responses.map((r) => ({ ...r }));
  }

  waitForResponse(interactionId: string, options: WaitForResponseOptions = {}): Promise<InteractionResponseRecord> {
    const record = this.byId.get(interactionId);
    if (!record) return Promise.reject(new SandboxUsageError(`no interaction ${interactionId}`));
    const final = options.final ?? false;
    const accepts = (r: InteractionResponseRecord): boolean =>
      (!final || isFinal(r)) && (options.kind === undefined || r.kind === options.kind) && (options.where?.({ ...r }) ?? true);
    const existing = record.responses.find(accepts);
    if (existing) return Promise.resolve({ ...existing });
    if (record.delivery.state === 'failed') {
      return Promise.reject(new Error(`interaction ${interactionId} failed: ${record.delivery.error ?? 'unknown'}`));
    }
    const timeoutMs = options.timeoutMs ?? 5_000;
    return this.waiters.wait(
      timeoutMs,
      `no ${final ? 'final ' : ''}response to interaction ${interactionId} within ${timeoutMs} ms`,
      (resolve, reject) => {
        const listener: Listener = { interactionId, accepts, resolve, reject };
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
    );
  }

  /** Rejects pending waits and ends HTTP deliveries; called on close. */
  close(): void {
    for (const controller of this.inFlight) controller.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiters.cancelAll();
    this.listeners.clear();
  }

  private push(record: InteractionRecord, response: InteractionResponseRecord): void {
    record.responses.push(response);
    for (const listener of [...this.listeners]) {
      if (listener.interactionId === record.id && listener.accepts(response)) listener.resolve({ ...response });
    }
  }

  private messageJson(record: InteractionRecord, message: MessageRecord): Record<string, unknown> {
    const { state } = this.core;
    const user = state.users.get(record.userId);
    return {
      id: message.id,
      type: message.type,
      content: message.content,
      channel_id: record.channelId,
      author: userJson(state.botUser),
      attachments: [],
      embeds: message.embeds,
      components: message.components,
      mentions: [],
      mention_roles: [],
      mention_everyone: false,
      pinned: false,
      tts: false,
      timestamp: message.createdAt.toISOString(),
      edited_timestamp: message.editedAt ? message.editedAt.toISOString() : null,
      flags: message.flags,
      application_id: this.core.applicationId,
      webhook_id: this.core.applicationId,
      interaction_metadata: {
        id: record.id,
        type: record.type,
        name: record.commandName,
        user: user ? userJson(user) : null,
        authorizing_integration_owners: { 0: record.guildId },
      },
    };
  }

  private newMessage(type: number, data: Record<string, unknown>, extraFlags = 0): MessageRecord {
    return {
      id: this.nextId(),
      type,
      content: typeof data.content === 'string' ? data.content : '',
      embeds: Array.isArray(data.embeds) ? data.embeds : [],
      components: Array.isArray(data.components) ? data.components : [],
      flags: (typeof data.flags === 'number' ? data.flags : 0) | extraFlags,
      createdAt: this.core.clock.now(),
      editedAt: null,
    };
  }

  // ---- routes -------------------------------------------------------------------------------

  routes(): RouteDefinition[] {
    const open = { auth: 'none', global: false } as const;
    return [
      {
        ...open,
        method: 'POST',
        template: '/interactions/:i/:t/callback',
        bucket: 'interaction-callback',
        major: ['i'],
        handle: (ctx) => this.callback(ctx),
      },
      {
        ...open,
        method: 'POST',
        template: '/webhooks/:app/:t',
        bucket: 'webhook',
        major: ['app', 't'],
        handle: (ctx) => this.followup(ctx),
      },
      {
        ...open,
        method: 'GET',
        template: '/webhooks/:app/:t/messages/:m',
        bucket: 'webhook',
        major: ['app', 't'],
        handle: (ctx) => this.getMessage(ctx),
      },
      {
        ...open,
        method: 'PATCH',
        template: '/webhooks/:app/:t/messages/:m',
        bucket: 'webhook',
        major: ['app', 't'],
        handle: (ctx) => this.editMessage(ctx),
      },
      {
        ...open,
        method: 'DELETE',
        template: '/webhooks/:app/:t/messages/:m',
        bucket: 'webhook',
        major: ['app', 't'],
        handle: (ctx) => this.deleteMessage(ctx),
      },
    ];
  }

  private callback(ctx: RouteContext): RouteResult {
    const record = this.byId.get(ctx.params.i ?? '');
    if (!record || record.token !== decodeSegment(ctx.params.t ?? '')) throw ApiErrors.unknownInteraction();
    if (record.delivery.state === 'failed') throw ApiErrors.unknownInteraction();
    const result = this.acknowledge(record, asObject(ctx.body, '_'), ctx.query.get('with_response') === 'true');
    if (record.delivery.mode === 'gateway') record.delivery.state = 'answered';
    return result;
  }

  /** The first response, by the callback route or inline in an HTTP answer: once, within 3 s, of a type the interaction allows. */
  private acknowledge(record: InteractionRecord, body: Record<string, unknown>, withResponse: boolean): RouteResult {
    if (record.callbackType !== null) throw ApiErrors.alreadyAcknowledged();
    if (this.core.clock.now().getTime() - record.createdAt.getTime() > INITIAL_RESPONSE_MS) throw ApiErrors.unknownInteraction();
    const type = body.type;
    // Components may also update their own message: 6 (deferred) and 7 (at once).
    const allowed = record.type === 4 ? [8] : record.type === 3 ? [4, 5, 6, 7, 9] : [4, 5, 9];
    if (typeof type !== 'number' || !allowed.includes(type)) {
      throw ApiErrors.invalidFormBody(
        'type',
        'INTERACTION_CALLBACK_TYPE_INVALID',
        'Interaction callback type is invalid for this interaction.',
      );
    }
    const data = body.data === undefined || body.data === null ? {} : asObject(body.data, 'data');
    let ephemeral = false;
    if (type === 4) {
      validateMessage(data, 'data.', true);
      record.original = this.newMessage(20, data);
      ephemeral = (record.original.flags & EPHEMERAL) !== 0;
    } else if (type === 5) {
      validateMessage(data, 'data.', false);
      record.original = this.newMessage(20, { flags: typeof data.flags === 'number' ? data.flags : 0 }, LOADING);
      ephemeral = (record.original.flags & EPHEMERAL) !== 0;
    } else if (type === 6 || type === 7) {
      const message = record.componentMessage!;
      if (type === 7) {
        validateMessage(data, 'data.', false);
        if (typeof data.content === 'string' || data.content === null) message.content = data.content ?? '';
        if (Array.isArray(data.embeds)) message.embeds = data.embeds;
        if (Array.isArray(data.components)) message.components = data.components;
        message.editedAt = this.core.clock.now();
      }
      record.original = message;
      ephemeral = (message.flags & EPHEMERAL) !== 0;
    } else if (type === 8) {
      validateChoices(data);
    } else if (typeof data.custom_id !== 'string' || typeof data.title !== 'string' || !Array.isArray(data.components)) {
      throw ApiErrors.invalidFormBody('data', 'BASE_TYPE_REQUIRED', 'A modal needs custom_id, title and components.');
    }
    record.callbackType = type;
    this.push(record, {
      at: this.core.clock.now(),
      kind: 'callback',
      type,
      data: body.data === undefined || body.data === null ? null : data,
      deferred: type === 5 || type === 6,
      ephemeral,
    });
    if (!withResponse) return { status: 204 };
    const interaction: Record<string, unknown> = { id: record.id, type: record.type };
    const resource: Record<string, unknown> = { type };
    if (record.original && (type === 4 || type === 5)) {
      interaction.response_message_id = record.original.id;
      interaction.response_message_loading = type === 5;
      interaction.response_message_ephemeral = ephemeral;
      if (type === 4) resource.message = this.messageJson(record, record.original);
    }
    return { status: 200, body: { interaction, resource } };
  }

  /** Interaction webhooks: 10015 for a token we never issued, 401 / 50027 once it is 15 minutes old. */
  private webhookInteraction(ctx: RouteContext): InteractionRecord {
    const record = this.byToken.get(decodeSegment(ctx.params.t ?? ''));
    if (!record || ctx.params.app !== this.core.applicationId) throw ApiErrors.unknownWebhook();
    if (this.core.clock.now().getTime() - record.createdAt.getTime() > TOKEN_LIFETIME_MS) throw ApiErrors.invalidWebhookToken();
    return record;
  }

  private findMessage(record: InteractionRecord, raw: string): MessageRecord {
    const id = decodeSegment(raw);
    if (id === '@original') {
      if (!record.original) throw ApiErrors.unknownMessage();
      return record.original;
    }
    if (record.original?.id === id) return record.original;
    const followup = record.followups.get(id);
    if (!followup) throw ApiErrors.unknownMessage();
    return followup;
  }

  private getMessage(ctx: RouteContext): RouteResult {
    const record = this.webhookInteraction(ctx);
    return { status: 200, body: this.messageJson(record, this.findMessage(record, ctx.params.m ?? '')) };
  }

  private editMessage(ctx: RouteContext): RouteResult {
    const record = this.webhookInteraction(ctx);
    const message = this.findMessage(record, ctx.params.m ?? '');
    const body = asObject(ctx.body, '_');
    validateMessage(body, '', false);
    if (typeof body.content === 'string' || body.content === null) message.content = body.content ?? '';
    if (Array.isArray(body.embeds)) message.embeds = body.embeds;
    if (Array.isArray(body.components)) message.components = body.components;
    // Ephemerality is fixed at creation; an edit only ends the loading state of a deferral.
    message.flags &= ~LOADING;
    message.editedAt = this.core.clock.now();
    const messageId = decodeSegment(ctx.params.m ?? '');
    this.push(record, {
      at: this.core.clock.now(),
      kind: 'edit',
      data: body,
      messageId,
      deferred: false,
      ephemeral: (message.flags & EPHEMERAL) !== 0,
    });
    return { status: 200, body: this.messageJson(record, message) };
  }

  private deleteMessage(ctx: RouteContext): RouteResult {
    const record = this.webhookInteraction(ctx);
    const message = this.findMessage(record, ctx.params.m ?? '');
    if (record.original === message) record.original = null;
    else record.followups.delete(message.id);
    this.push(record, {
      at: this.core.clock.now(),
      kind: 'delete',
      data: null,
      messageId: decodeSegment(ctx.params.m ?? ''),
      deferred: false,
      ephemeral: (message.flags & EPHEMERAL) !== 0,
    });
    return { status: 204 };
  }

  /** A follow-up needs an acknowledged interaction; before that the token names no webhook yet. */
  private followup(ctx: RouteContext): RouteResult {
    const record = this.webhookInteraction(ctx);
    if (record.callbackType === null) throw ApiErrors.unknownWebhook();
    const body = asObject(ctx.body, '_');
    validateMessage(body, '', true);
    const message = this.newMessage(0, body);
    record.followups.set(message.id, message);
    this.push(record, {
      at: this.core.clock.now(),
      kind: 'followup',
      data: body,
      messageId: message.id,
      deferred: false,
      ephemeral: (message.flags & EPHEMERAL) !== 0,
    });
    return { status: 200, body: this.messageJson(record, message) };
  }
}
