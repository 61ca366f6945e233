import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../support/logger';
import type { CoreContext } from './rest-routes';
import { channelJson, guildJson, memberJson, roleJson, userJson } from './serialize';
import type { GatewaySettings, IdentifyRecord, Shard } from './gateway-sharding';
import { DEFAULT_GATEWAY_SETTINGS, IdentifyPacer, parseShard, validateSettings } from './gateway-sharding';
import { shardIdForGuild } from './snowflakes';
import type { GuildRecord, StateEvent } from './state';
import { Waiters } from './waiters';

/** Gateway intents (Discord's docs, Gateway; docs/discord-api-notes.md §4). */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildModeration: 1 << 2,
  GuildMessages: 1 << 9,
  GuildPresences: 1 << 8,
  MessageContent: 1 << 15,
} as const;
const ALL_INTENTS = (1 << 26) - 1;

/** Gateway close codes (Discord's docs, Opcodes and Status Codes; docs/discord-api-notes.md §4). */
export const CloseCode = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidShard: 4010,
  ShardingRequired: 4011,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

/** How many dispatches a session keeps for RESUME. */
const RESUME_BUFFER = 1_000;

interface Session {
  id: string;
  shard: Shard;
  intents: number;
  seq: number;
  socket: WebSocket | null;
  buffer: Array<{ s: number; text: string }>;
}

interface Connection {
  socket: WebSocket;
  session: Session | null;
}

export interface GatewayOptions {
  core: CoreContext;
  botToken: string;
  logger: Logger;
  heartbeatIntervalMs: number;
  nextId: () => string;
  /** Real time for identify pacing, like the rate limits: clients really wait. */
  nowMs: () => number;
  settings?: Partial<GatewaySettings>;
}

/** The fields that are set: a spread must not turn a setting into undefined. */
function defined(settings: Partial<GatewaySettings>): Partial<GatewaySettings> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** A session as tests see it. */
export interface GatewaySessionInfo {
  sessionId: string;
  shard: Shard;
  connected: boolean;
  /** The guilds of its shard that the bot is in now. */
  guildIds: string[];
}

/**
 * The gateway discord.js connects to after `GET /gateway/bot` (docs/tech-facts.md §3): HELLO,
 * IDENTIFY → READY + GUILD_CREATE per guild, heartbeat ACKs, RESUME with replay, and dispatches of
 * every state change the bot's intents subscribe to. JSON text frames only: discord.js asks for
 * zlib-stream only when `zlib-sync` is installed.
 *
 * Sharded as on Discord (docs/discord-api-notes.md §4): a session identifies as `[shard_id,
 * num_shards]` and gets READY, GUILD_CREATE and every guild event only for guilds with
 * `(guild_id >> 22) % num_shards === shard_id`; events without a guild go to shard 0. Sessions of the
 * same shard all get them (Discord allows several, e.g. for a hand-off), so double handling shows.
 */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private readonly connections = new Set<Connection>();
  private readonly identifyListeners = new Set<() => void>();
  private readonly waiters = new Waiters();
  private readonly closes: Array<{ code: number; reason: string }> = [];
  private readonly identifies: IdentifyRecord[] = [];
  private readonly unsubscribe: () => void;
  private settings: GatewaySettings;
  private readonly pacer: IdentifyPacer;
  private available = true;

  constructor(private readonly options: GatewayOptions) {
    validateSettings(options.settings ?? {});
    this.settings = { ...DEFAULT_GATEWAY_SETTINGS, ...defined(options.settings ?? {}) };
    this.pacer = new IdentifyPacer(options.nowMs, () => this.settings);
    this.unsubscribe = options.core.state.subscribe((event) => this.onStateEvent(event));
  }

  configure(settings: Partial<GatewaySettings>): void {
    validateSettings(settings);
    const limitChanged = settings.sessionStartLimit !== undefined && settings.sessionStartLimit !== this.settings.sessionStartLimit;
    this.settings = { ...this.settings, ...defined(settings) };
    if (limitChanged) this.pacer.resetLimit();
  }

  /** `GET /gateway/bot` (docs/discord-api-notes.md §4). */
  botInfo(): Record<string, unknown> {
    const shards = this.settings.shards ?? Math.max(1, Math.ceil(this.botGuilds().length / 1_000));
    return { url: this.options.core.gatewayUrl(), shards, session_start_limit: this.pacer.sessionStartLimit() };
  }

  sessionsInfo(): GatewaySessionInfo[] {
    return [...this.sessions.values()].map((session) => ({
      sessionId: session.id,
      shard: [...session.shard],
      connected: session.socket?.readyState === WebSocket.OPEN,
      guildIds: this.botGuilds(session.shard).map((g) => g.id),
    }));
  }

  identifyLog(): IdentifyRecord[] {
    return this.identifies.map((r) => ({ ...r, shard: [...r.shard] }));
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!this.available) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req));
  }

  /** Number of sessions currently identified and attached to a socket. */
  connectedSessions(): number {
    return [...this.sessions.values()].filter((s) => s.socket?.readyState === WebSocket.OPEN).length;
  }

  /** Resolves once at least `count` sessions are identified and connected. */
  waitForConnection(timeoutMs = 5_000, count = 1): Promise<void> {
    if (this.connectedSessions() >= count) return Promise.resolve();
    return this.waiters.wait<void>(timeoutMs, `fewer than ${count} gateway session(s) identified within ${timeoutMs} ms`, (resolve) => {
      const listener = (): void => {
        if (this.connectedSessions() >= count) resolve();
      };
      this.identifyListeners.add(listener);
      return () => this.identifyListeners.delete(listener);
    });
  }

  /** Close codes the sandbox sent (4004, 4014, …), oldest first. */
  closeCodes(): Array<{ code: number; reason: string }> {
    return this.closes.map((c) => ({ ...c }));
  }

  /**
   * An outage of Discord's gateway (`false`) and its end (`true`): while it lasts, every open socket
   * drops without a close frame (the client sees 1006) and every new connection is refused with 503;
   * sessions stay resumable, as when Discord comes back. REST is not affected.
   */
  setAvailable(available: boolean): void {
    this.available = available;
    if (!available) for (const connection of this.connections) connection.socket.terminate();
  }

  /** Closes every client socket with `code`; a 4xxx code other than 4004/4010–4014 lets clients resume. */
  disconnectAll(code: number = CloseCode.UnknownError): void {
    for (const connection of this.connections) this.closeWith(connection.socket, code, 'sandbox disconnect');
  }

  /**
   * Sends a dispatch to every session of the guild's shard (shard 0 without a guild) whose intents
   * cover it; a session whose socket dropped keeps it for RESUME. Returns how many sessions it reached
   * or will reach on resuming.
   */
  dispatch(event: string, data: Record<string, unknown>, requiredIntent = 0, guildId?: string): number {
    let reached = 0;
    for (const session of this.sessions.values()) {
      if (requiredIntent !== 0 && (session.intents & requiredIntent) === 0) continue;
      if (!this.owns(session.shard, guildId)) continue;
      this.send(session, event, data);
      reached += 1;
    }
    return reached;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    for (const connection of this.connections) connection.socket.terminate();
    this.connections.clear();
    this.sessions.clear();
    this.waiters.cancelAll();
    this.identifyListeners.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  // ---- connection lifecycle -----------------------------------------------------------------

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const connection: Connection = { socket: ws, session: null };
    this.connections.add(connection);
    const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
    ws.on('close', (code) => this.onClose(connection, code));
    ws.on('error', (error) => this.options.logger.debug({ err: error }, 'sandbox gateway socket error'));
    if (query.get('v') !== '10') {
      this.closeWith(ws, CloseCode.InvalidApiVersion, 'Invalid API version');
      return;
    }
    if ((query.get('encoding') ?? 'json') !== 'json' || query.has('compress')) {
      this.closeWith(ws, CloseCode.UnknownError, 'The sandbox gateway speaks uncompressed JSON only');
      return;
    }
    ws.on('message', (raw, isBinary) => this.onMessage(connection, raw.toString(), isBinary));
    this.sendRaw(ws, { op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs, _trace: ['sandbox-gateway'] } });
  }

  private onClose(connection: Connection, code: number): void {
    this.connections.delete(connection);
    const session = connection.session;
    if (!session || session.socket !== connection.socket) return;
    session.socket = null;
    // A normal close ends the session; other closes leave it resumable (Discord's docs, Gateway, "Resuming"; docs/tech-facts.md §3).
    if (code === 1000 || code === 1001) this.sessions.delete(session.id);
  }

  private onMessage(connection: Connection, text: string, isBinary: boolean): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      if (isBinary) throw new Error('binary frame');
      payload = JSON.parse(text) as { op?: unknown; d?: unknown };
    } catch {
      this.closeWith(connection.socket, CloseCode.DecodeError, 'Error while decoding payload.');
      return;
    }
    const d = (typeof payload.d === 'object' && payload.d !== null ? payload.d : {}) as Record<string, unknown>;
    switch (payload.op) {
      case 1:
        this.sendRaw(connection.socket, { op: 11 });
        return;
      case 2:
        this.identify(connection, d);
        return;
      case 6:
        this.resume(connection, d);
        return;
      case 3:
      case 4:
        if (!connection.session) this.closeWith(connection.socket, CloseCode.NotAuthenticated, 'Not authenticated.');
        return;
      case 8:
        if (!connection.session) this.closeWith(connection.socket, CloseCode.NotAuthenticated, 'Not authenticated.');
        else this.requestMembers(connection.session, d);
        return;
      default:
        this.closeWith(connection.socket, CloseCode.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private identify(connection: Connection, d: Record<string, unknown>): void {
    const ws = connection.socket;
    if (connection.session) {
      this.closeWith(ws, CloseCode.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    if (d.token !== this.options.botToken) {
      this.closeWith(ws, CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const shard = parseShard(d.shard);
    if (!shard) {
      this.identifies.push({ at: this.options.core.clock.now(), shard: [-1, -1], outcome: 'invalid-shard' });
      this.closeWith(ws, CloseCode.InvalidShard, 'Invalid shard.');
      return;
    }
    const intents = d.intents;
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~ALL_INTENTS) !== 0) {
      this.closeWith(ws, CloseCode.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    // Privileged intents must be switched on for the app; presences and message content never are here.
    const { state } = this.options.core;
    const disallowed =
      ((intents & Intent.GuildMembers) !== 0 && !state.membersIntentEnabled) ||
      (intents & Intent.GuildPresences) !== 0 ||
      (intents & Intent.MessageContent) !== 0;
    if (disallowed) {
      this.closeWith(ws, CloseCode.DisallowedIntents, 'Disallowed intent(s).');
      return;
    }
    const guilds = this.botGuilds(shard);
    const at = this.options.core.clock.now();
    if (guilds.length > this.settings.maxGuildsPerShard) {
      this.identifies.push({ at, shard, outcome: 'sharding-required' });
      this.closeWith(ws, CloseCode.ShardingRequired, 'Sharding required.');
      return;
    }
    // Too fast for the shard's max_concurrency bucket: op 9, not resumable (docs/discord-api-notes.md §4).
    if (!this.pacer.take(shard[0])) {
      this.identifies.push({ at, shard, outcome: 'rate-limited' });
      this.sendRaw(ws, { op: 9, d: false });
      return;
    }
    this.identifies.push({ at, shard, outcome: 'ready' });
    const session: Session = { id: this.options.nextId(), shard, intents, seq: 0, socket: ws, buffer: [] };
    this.sessions.set(session.id, session);
    connection.session = session;
    this.send(session, 'READY', {
      v: 10,
      user: { ...userJson(state.botUser), verified: true, mfa_enabled: false, flags: 0 },
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.options.core.gatewayUrl(),
      shard: [...shard],
      application: { id: this.options.core.applicationId, flags: state.membersIntentEnabled ? 1 << 15 : 0 },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
      auth_session_id_hash: '',
    });
    // Every guild READY lists as unavailable must follow as GUILD_CREATE, or discord.js waits `waitGuildTimeout`.
    for (const guild of guilds) this.send(session, 'GUILD_CREATE', this.guildCreate(guild));
    for (const listener of [...this.identifyListeners]) listener();
  }

  private resume(connection: Connection, d: Record<string, unknown>): void {
    const ws = connection.socket;
    if (d.token !== this.options.botToken) {
      this.closeWith(ws, CloseCode.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const session = typeof d.session_id === 'string' ? this.sessions.get(d.session_id) : undefined;
    const seq = typeof d.seq === 'number' ? d.seq : -1;
    const replayable =
      session !== undefined && seq >= 0 && seq <= session.seq && (seq === session.seq || session.buffer.some((e) => e.s === seq + 1));
    if (!session || !replayable) {
      this.sendRaw(ws, { op: 9, d: false });
      return;
    }
    session.socket?.close(CloseCode.UnknownError, 'Session resumed elsewhere');
    session.socket = ws;
    connection.session = session;
    for (const entry of session.buffer) if (entry.s > seq) ws.send(entry.text);
    this.send(session, 'RESUMED', {});
  }

  /** Opcode 8: answers with GUILD_MEMBERS_CHUNK, 1000 members per chunk (Discord's docs, Gateway Events; docs/discord-api-notes.md §5). */
  private requestMembers(session: Session, d: Record<string, unknown>): void {
    const guild = typeof d.guild_id === 'string' ? this.options.core.state.guild(d.guild_id) : undefined;
    if (!guild || !this.owns(session.shard, guild.id)) return;
    const userIds = Array.isArray(d.user_ids)
      ? d.user_ids.filter((x): x is string => typeof x === 'string')
      : typeof d.user_ids === 'string'
        ? [d.user_ids]
        : null;
    const query = typeof d.query === 'string' ? d.query.toLowerCase() : '';
    const limit = typeof d.limit === 'number' && d.limit > 0 ? d.limit : Number.POSITIVE_INFINITY;
    const { state } = this.options.core;
    let ids: string[];
    if (userIds) ids = userIds.slice(0, 100).filter((id) => guild.members.has(id));
    else if (query === '' && (session.intents & Intent.GuildMembers) === 0) ids = [];
    else
      ids = state
        .sortedMemberIds(guild)
        .filter((id) => (state.users.get(id)?.username ?? '').toLowerCase().startsWith(query))
        .slice(0, limit);
    const notFound = userIds ? userIds.filter((id) => !guild.members.has(id)) : [];
    const chunkCount = Math.max(1, Math.ceil(ids.length / 1000));
    for (let i = 0; i < chunkCount; i += 1) {
      const members = ids.slice(i * 1000, (i + 1) * 1000).flatMap((id) => {
        const member = guild.members.get(id);
        const user = state.users.get(id);
        return member && user ? [memberJson(member, user)] : [];
      });
      const chunk: Record<string, unknown> = { guild_id: guild.id, members, chunk_index: i, chunk_count: chunkCount };
      if (i === 0 && notFound.length > 0) chunk.not_found = notFound;
      if (typeof d.nonce === 'string') chunk.nonce = d.nonce;
      this.send(session, 'GUILD_MEMBERS_CHUNK', chunk);
    }
  }

  // ---- dispatches ---------------------------------------------------------------------------

  /** The bot's guilds, of one shard when given. */
  private botGuilds(shard?: Shard): GuildRecord[] {
    const botId = this.options.core.state.botUser.id;
    return [...this.options.core.state.guilds.values()].filter((g) => g.members.has(botId) && (!shard || this.owns(shard, g.id)));
  }

  private owns([id, count]: Shard, guildId: string | undefined): boolean {
    return guildId === undefined ? id === 0 : shardIdForGuild(guildId, count) === id;
  }

  /**
   * GUILD_CREATE as discord.js needs it: `channels` present or the guild reads as unavailable, and the
   * bot's own member so `guild.members.me` works (docs/tech-facts.md §3). Without the presences
   * intent Discord sends only the bot's own member (and voice members, which the sandbox has none of).
   */
  private guildCreate(guild: GuildRecord): Record<string, unknown> {
    const { state } = this.options.core;
    const bot = guild.members.get(state.botUser.id);
    return {
      ...guildJson(guild),
      joined_at: (bot?.joinedAt ?? this.options.core.clock.now()).toISOString(),
      large: guild.members.size > 50,
      unavailable: false,
      member_count: guild.members.size,
      voice_states: [],
      members: bot ? [memberJson(bot, state.botUser)] : [],
      channels: [...guild.channels.values()].map(channelJson),
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  private onStateEvent(event: StateEvent): void {
    const { state } = this.options.core;
    switch (event.type) {
      case 'guild-create': {
        const guild = state.guild(event.guildId);
        if (guild && guild.members.has(state.botUser.id)) this.dispatch('GUILD_CREATE', this.guildCreate(guild), 0, guild.id);
        return;
      }
      case 'guild-update': {
        const guild = state.guild(event.guildId);
        if (guild && guild.members.has(state.botUser.id)) this.dispatch('GUILD_UPDATE', guildJson(guild), Intent.Guilds, guild.id);
        return;
      }
      case 'role-create':
      case 'role-update':
        this.dispatch(
          event.type === 'role-create' ? 'GUILD_ROLE_CREATE' : 'GUILD_ROLE_UPDATE',
          { guild_id: event.guildId, role: roleJson(event.role) },
          Intent.Guilds,
          event.guildId,
        );
        return;
      case 'role-delete':
        this.dispatch('GUILD_ROLE_DELETE', { guild_id: event.guildId, role_id: event.role.id }, Intent.Guilds, event.guildId);
        return;
      case 'member-add': {
        const guild = state.guild(event.guildId);
        const member = guild?.members.get(event.userId);
        const user = state.users.get(event.userId);
        if (!guild || !member || !user || event.silent) return;
        if (user.id === state.botUser.id) this.dispatch('GUILD_CREATE', this.guildCreate(guild), 0, guild.id);
        else this.dispatch('GUILD_MEMBER_ADD', { ...memberJson(member, user), guild_id: guild.id }, Intent.GuildMembers, guild.id);
        return;
      }
      case 'member-update': {
        const guild = state.guild(event.guildId);
        const member = guild?.members.get(event.userId);
        const user = state.users.get(event.userId);
        if (!guild || !member || !user || event.silent) return;
        // The bot hears about its own member without the GUILD_MEMBERS intent; others need it.
        const intent = user.id === state.botUser.id ? 0 : Intent.GuildMembers;
        this.dispatch('GUILD_MEMBER_UPDATE', { ...memberJson(member, user), guild_id: guild.id }, intent, guild.id);
        return;
      }
      case 'member-remove':
        if (event.user.id === state.botUser.id) this.dispatch('GUILD_DELETE', { id: event.guildId }, 0, event.guildId);
        else
          this.dispatch('GUILD_MEMBER_REMOVE', { guild_id: event.guildId, user: userJson(event.user) }, Intent.GuildMembers, event.guildId);
        return;
      case 'channel-create':
      case 'channel-update':
      case 'channel-delete': {
        const name =
          event.type === 'channel-create' ? 'CHANNEL_CREATE' : event.type === 'channel-update' ? 'CHANNEL_UPDATE' : 'CHANNEL_DELETE';
        this.dispatch(name, channelJson(event.channel), Intent.Guilds, event.guildId);
        return;
      }
      case 'ban-add':
      case 'ban-remove':
        this.dispatch(
          event.type === 'ban-add' ? 'GUILD_BAN_ADD' : 'GUILD_BAN_REMOVE',
          { guild_id: event.guildId, user: userJson(event.user) },
          Intent.GuildModeration,
          event.guildId,
        );
        return;
    }
  }

  private send(session: Session, event: string, data: Record<string, unknown>): void {
    session.seq += 1;
    const text = JSON.stringify({ op: 0, t: event, s: session.seq, d: data });
    session.buffer.push({ s: session.seq, text });
    if (session.buffer.length > RESUME_BUFFER) {
      session.buffer.shift();
      // A detached session that missed more than it can replay could never resume: forget it.
      if (!session.socket) this.sessions.delete(session.id);
    }
    if (session.socket?.readyState === WebSocket.OPEN) session.socket.send(text);
  }

  private closeWith(ws: WebSocket, code: number, reason: string): void {
    this.closes.push({ code, reason });
    ws.close(code, reason);
  }

  private sendRaw(ws: WebSocket, payload: Record<string, unknown>): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
  }
}
