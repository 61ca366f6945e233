import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type Config, parseConfig } from '../../src/config';
import { type Tierlink, createTierlink } from '../../src/main';
import { createLogger } from '../../src/edges/outbound/observability/logger';
import { queryRows } from '../../src/edges/outbound/store/database';
import { type DiscordSandbox, Permission, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { Browser } from './browser';
import { UNPACED_PATREON, raisedDiscord, raisedPatreon } from './raised-limits';
import { type TestDatabase, createTestDatabase } from './test-database';
import { eventually } from './eventually';
import { standInEnvironment, type ManualClock, createManualClock } from '@tierlink/sandbox';
import { pageText } from '@tierlink/sandbox/demo';

export const E2E_SECRET_KEY = 'e2e-secret-key-that-is-long-enough-1234567';

/** A log sink the tests can read (the redaction test scans it for every secret the run used). */
export class MemoryLog extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface CommandReply {
  content: string;
  /** Link buttons in the reply. */
  urls: string[];
  /** Other buttons in the reply (their `custom_id` and label), pressed with `pressButton` (test/support/e2e-admin.ts). */
  buttons: Array<{ customId: string; label: string }>;
  ephemeral: boolean;
  raw: Record<string, unknown> | null;
}

/**
 * The whole service started the way `npm start` starts it (createTierlink + start), against both
 * stand-ins over HTTP, with the real discord.js client on the sandbox gateway.
 */
export interface E2E {
  clock: ManualClock;
  patreon: MembershipServiceSandbox;
  discord: DiscordSandbox;
  db: TestDatabase;
  tierlink: Tierlink;
  log: MemoryLog;
  config: Config;
  /** The environment the configuration was read from: what a CLI process of the same install is given. */
  env: Record<string, string>;
  url: string;
  /** Where the server listens (`url` is PUBLIC_URL, which may point elsewhere). */
  port: number;
  guildId: string;
  /** The guild's owner (has every permission). */
  ownerId: string;
  roles: { bronze: string; silver: string; gold: string; staff: string; vip: string };
  tiers: { bronze: string; silver: string; gold: string };
  /** Runs a slash command as a member and returns the final reply. */
  command(userId: string, name: string, options?: Array<Record<string, unknown>>, memberPermissions?: bigint): Promise<CommandReply>;
  /** Autocomplete: the choices offered while `focused` is typed. */
  autocomplete(
    userId: string,
    name: string,
    options: Array<Record<string, unknown>>,
    focused: string,
    memberPermissions?: bigint,
  ): Promise<Array<{ name: string; value: string }>>;
  /** `/link` → button → authorize as `patreonUserId` → callback; the result page. */
  link(discordUserId: string, patreonUserId: string, decision?: 'allow' | 'deny'): Promise<{ status: number; html: string }>;
  /** `/connect` as the guild owner (or `by`, a member who may connect) → authorize as the creator → callback; the result page. */
  connect(by?: string): Promise<{ status: number; html: string }>;
  /**
   * Follows a `/link` or `/connect` button in `browser` as far as the service's consent page, signing
   * in with Discord as `discordUserId` on Discord's page on the way (as someone who logs in there
   * afresh); the answer that is not a redirect to the service, when the flow stops before it.
   */
  followToService(browser: Browser, button: string, discordUserId: string): Promise<FlowStep>;
  stop(): Promise<void>;
}

export interface E2EOptions {
  /** The membership stand-in's dialect: the spec's (default) or Patreon's documented one. */
  dialect?: 'spec' | 'patreon';
  /** Patreon's dialect: the order of a campaign's posts list, which Patreon does not document (the stand-in's default: oldest first). */
  postsOrder?: 'oldest-first' | 'newest-first';
  /** Run `/connect` as the creator right after start (and fail loudly if it does not succeed). */
  connected?: boolean;
  /** Start with the creator's tokens in the environment (connected at start-up, no /connect). */
  creatorTokensInEnv?: boolean;
  /**
   * Tierlink opens the configured database itself, as `npm start` does (PGlite in DATA_DIR, or
   * DATABASE_URL on PostgreSQL), so that a CLI process given {@link E2E.env} can open it once
   * Tierlink is stopped. `db` is then the test database only on PostgreSQL (the same one).
   */
  ownDatabase?: boolean;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /**
   * Why this file raises the stand-ins' limits (and Tierlink's pacing to Patreon with them); the
   * real services' limits when absent.
   */
  raisedLimits?: string;
  /**
   * Runs after the sandboxes are seeded and before the service is created (a second campaign or
   * guild that must exist at start-up); the variables it returns are added to the environment.
   */
  beforeStart?(world: {
    patreon: MembershipServiceSandbox;
    discord: DiscordSandbox;
    guildId: string;
  }): Record<string, string> | void | Promise<Record<string, string> | void>;
}

const ADMIN = 1n << 3n;

/** Where a followed button ended: the service's consent page, or a page of Tierlink's own. */
export type FlowStep = { kind: 'service'; url: string } | { kind: 'page'; status: number; html: string };

/** The service's consent page a followed button reached; throws with the page's text when it stopped on a page. */
export function serviceUrl(step: FlowStep): string {
  if (step.kind === 'page') throw new Error(`the flow stopped on a page (${step.status}): ${pageText(step.html)}`);
  return step.url;
}

/** The content and buttons of a message as an interaction response, edit or follow-up carries it. */
export function readReply(data: Record<string, unknown> | null): Omit<CommandReply, 'ephemeral'> {
  const rows = (data?.components as Array<{ components?: Array<{ url?: string; custom_id?: string; label?: string }> }> | undefined) ?? [];
  const parts = rows.flatMap((r) => r.components ?? []);
  return {
    content: typeof data?.content === 'string' ? data.content : '',
    urls: parts.flatMap((c) => (c.url ? [c.url] : [])),
    buttons: parts.flatMap((c) => (c.custom_id ? [{ customId: c.custom_id, label: c.label ?? '' }] : [])),
    raw: data,
  };
}

/** The content, buttons and ephemerality of an interaction's last reply. */
function replyOf(discord: DiscordSandbox, interactionId: string): CommandReply {
  const responses = discord.interactionResponses(interactionId).filter((r) => !r.deferred);
  const ephemeral = discord.interactionResponses(interactionId).some((r) => r.ephemeral);
  return { ...readReply(responses.at(-1)?.data ?? null), ephemeral };
}

/**
 * Runs a slash command as a member against whatever Tierlink serves the sandbox (in this process
 * or another) and returns the final reply.
 */
export async function sandboxCommand(
  world: { discord: DiscordSandbox; guildId: string },
  userId: string,
  name: string,
  commandOptions: Array<Record<string, unknown>> = [],
  memberPermissions = 0n,
): Promise<CommandReply> {
  const { discord, guildId } = world;
  const { interactionId } = discord.injectCommand({ guildId, userId, name, options: commandOptions, memberPermissions });
  await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  // A deferred command may edit its reply more than once (e.g. "updating…" then the result).
  await new Promise((r) => setTimeout(r, 0));
  return replyOf(discord, interactionId);
}

/**
 * Follows a `/link` or `/connect` button in `browser` through the Discord sign-in (Discord's consent
 * page as `discordUserId` when it asks) to the membership service's authorize page, or the page the
 * flow ended on.
 */
export async function followToService(
  discord: DiscordSandbox,
  browser: Browser,
  button: string,
  discordUserId: string,
): Promise<{ kind: 'service'; url: string } | { kind: 'page'; status: number; html: string }> {
  const follow = await browser.get(button);
  let location = follow.headers.get('location');
  if (follow.status !== 302 || !location) return { kind: 'page', status: follow.status, html: await follow.text() };
  if (location.startsWith(`${discord.webBaseUrl}/`)) {
    const back = await browser.get(await discord.approveAuthorization(location, discordUserId));
    location = back.headers.get('location');
    if (back.status !== 302 || !location) return { kind: 'page', status: back.status, html: await back.text() };
  }
  return { kind: 'service', url: location };
}

/** `/link` → button → Discord sign-in → authorize as `patreonUserId` → callback, in one browser; the result page. */
export async function linkPatron(
  world: { discord: DiscordSandbox; patreon: MembershipServiceSandbox; guildId: string },
  discordUserId: string,
  patreonUserId: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<{ status: number; html: string }> {
  const reply = await sandboxCommand(world, discordUserId, 'link');
  const button = reply.urls[0];
  if (!button) throw new Error(`no link button in the /link reply: ${reply.content}`);
  // One browser follows the button and comes back to the callback (it holds the flow's cookie).
  const browser = new Browser();
  const step = await followToService(world.discord, browser, button, discordUserId);
  if (step.kind === 'page') return { status: step.status, html: step.html };
  const callback =
    decision === 'allow'
      ? await world.patreon.approveAuthorization(step.url, patreonUserId)
      : await world.patreon.denyAuthorization(step.url);
  const page = await browser.get(callback);
  return { status: page.status, html: await page.text() };
}

/**
 * Waits until the work already due is done: every delivery the Patreon stand-in queued has been
 * answered and processed, every stored Ko-fi payment processed, and no job due at the test clock's
 * time is still pending (the durable queue sweeps every 200 ms here). A test that then finds nothing
 * changed knows nothing was to change, not that it was not looked at yet.
 */
export async function dueWorkDone(e: E2E, timeoutMs = 10_000): Promise<void> {
  await e.patreon.flushDeliveries();
  await eventually(
    'the work due',
    async () => {
      const now = e.clock.now();
      const [row] = await queryRows<{ n: number }>(
        e.db.database.db,
        sql`select (select count(*) from webhook_inbox where status = 'pending' and run_at <= ${now})
              + (select count(*) from jobs where status = 'pending' and run_at <= ${now})
              + (select count(*) from kofi_payments where processed_at is null) as n`,
      );
      return Number(row?.n) === 0;
    },
    timeoutMs,
    20,
  );
}

export async function startE2E(options: E2EOptions = {}): Promise<E2E> {
  const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const { raisedLimits } = options;
  const patreon = await createMembershipServiceSandbox({
    clock,
    dialect: options.dialect ?? 'spec',
    ...(options.postsOrder ? { postsOrder: options.postsOrder } : {}),
    ...(raisedLimits ? raisedPatreon(raisedLimits) : {}),
  });
  // Set up as the README says: Public Bot turned off (only the operator adds the bot to a server).
  const discord = await createDiscordSandbox({ clock, botPublic: false, ...(raisedLimits ? raisedDiscord(raisedLimits) : {}) });
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-e2e-'));

  const ownerId = '100000000000000099';
  // The bot invited as the README says: its role has Manage Roles, and Create Invite for the join page.
  const { guildId } = discord.createGuild({
    name: 'Fan Club',
    ownerId,
    botPermissions: Permission.ManageRoles | Permission.CreateInstantInvite,
  });
  const role = (name: string, position = 1) => discord.createRole(guildId, { name, position }).id;
  const roles = { bronze: role('Bronze'), silver: role('Silver'), gold: role('Gold'), staff: role('Staff'), vip: '' };
  roles.vip = role('VIP', 10); // above the bot's role
  const tier = (title: string, amountCents: number, roleId: string) =>
    patreon.createTier(patreon.campaignId, { title, amountCents, chatRoleIds: [roleId] }).id;
  const tiers = {
    bronze: tier('Bronze', 300, roles.bronze),
    silver: tier('Silver', 500, roles.silver),
    gold: tier('Gold', 1000, roles.gold),
  };

  const extraEnv = (await options.beforeStart?.({ patreon, discord, guildId })) ?? {};
  const env: Record<string, string> = {
    ...standInEnvironment(patreon, discord, guildId),
    DATA_DIR: dataDir,
    SECRET_KEY: E2E_SECRET_KEY,
    LOG_LEVEL: 'debug',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    ...(options.creatorTokensInEnv
      ? {
          PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
          PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
        }
      : {}),
    ...options.env,
    ...extraEnv,
  };
  const parsed = parseConfig(env);
  if (!parsed.ok) throw parsed.error;
  const config = parsed.value;
  const log = new MemoryLog();
  const logger = createLogger({ level: 'debug', destination: log });
  const tierlink = await createTierlink({
    config,
    logger,
    clock,
    ...(options.ownDatabase ? {} : { database: db.database }),
    discordWaitGuildTimeoutMs: 500,
    patreonRetry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...(raisedLimits ? { patreonLimits: UNPACED_PATREON } : {}),
    pollMs: 200,
  });
  const { url, port } = await tierlink.start();
  patreon.registerRedirectUri(`${url}/oauth/callback`);
  // The pages of /link and /connect sign people in with Discord first (registered as the README says).
  discord.registerRedirectUri(`${url}/discord/callback`);

  const e2e: E2E = {
    clock,
    patreon,
    discord,
    db,
    tierlink,
    log,
    config,
    env,
    url,
    port,
    guildId,
    ownerId,
    roles,
    tiers,

    command: (userId, name, commandOptions = [], memberPermissions = 0n) =>
      sandboxCommand({ discord, guildId }, userId, name, commandOptions, memberPermissions),

    async autocomplete(userId, name, commandOptions, focused, memberPermissions = ADMIN) {
      const { interactionId } = discord.injectCommand({ guildId, userId, name, options: commandOptions, focused, memberPermissions });
      const response = await discord.waitForInteractionResponse(interactionId, { timeoutMs: 10_000 });
      return ((response.data?.choices as Array<{ name: string; value: string }> | undefined) ?? []).map((c) => ({
        name: c.name,
        value: c.value,
      }));
    },

    followToService: (browser, button, discordUserId) => followToService(discord, browser, button, discordUserId),

    link: (discordUserId, patreonUserId, decision = 'allow') =>
      linkPatron({ discord, patreon, guildId }, discordUserId, patreonUserId, decision),

    async connect(by = ownerId) {
      const reply = await e2e.command(by, 'connect', [], ADMIN);
      const button = reply.urls[0];
      if (!button) throw new Error(`no link button in the /connect reply: ${reply.content}`);
      const browser = new Browser();
      const step = await e2e.followToService(browser, button, by);
      if (step.kind === 'page') return { status: step.status, html: step.html };
      const page = await browser.get(await patreon.approveAuthorization(step.url, patreon.creatorUserId));
      return { status: page.status, html: await page.text() };
    },

    async stop() {
      await e2e.tierlink.stop();
      await discord.close();
      await patreon.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (options.connected) {
    const page = await e2e.connect();
    if (page.status !== 200) throw new Error(`connect failed: ${pageText(page.html)}`);
  }
  return e2e;
}

/** Text of an HTML page without tags, for assertions on what a person reads. */
export { pageText };
