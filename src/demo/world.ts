import fs from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../config';
import { type Tierlink, createTierlink } from '../main';
import { type DiscordSandbox, Permission, createDiscordSandbox } from '../sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '../sandbox/membership-service';
import type { ShiftableClock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { DemoStepError } from './timeline';
import { standInEnvironment } from '../sandbox/service-environment';

/**
 * The demo's world: both stand-ins seeded with a creator, a server and a few people, and the real
 * service wired to them over HTTP exactly as `npm start` wires it (the same steps as the end-to-end
 * tests, which src/ cannot import).
 */

export interface CommandReply {
  content: string;
  /** Link buttons in the reply. */
  urls: string[];
}

export interface CommandOptions {
  options?: Array<Record<string, unknown>>;
  /** Member permissions; the member's own when absent. */
  permissions?: bigint;
  /** Waits for a reply this accepts (a deferred command may edit its reply several times). */
  until?: (content: string) => boolean;
}

export interface DemoPerson {
  name: string;
  /** Discord user id (when the person is in the server). */
  discordId: string;
  /** Membership-service user id (when the person has an account there). */
  patreonUserId: string;
}

export interface StandIns {
  clock: ShiftableClock;
  patreon: MembershipServiceSandbox;
  discord: DiscordSandbox;
  guildId: string;
  guildName: string;
  owner: { name: string; discordId: string };
  roles: { gold: string; platinum: string; formerPatron: string };
  tiers: { gold: string; platinum: string };
  ada: DemoPerson;
  /** In the server, not linked: the link page printed after the story is theirs. */
  you: { name: string; discordId: string };
  /** A Gold patron who has not linked: whom to log in as on the link page in a browser. */
  bea: { name: string; patreonUserId: string };
  /** Idempotent. */
  close(): Promise<void>;
}

const ADMINISTRATOR = Permission.Administrator;

/** Starts both stand-ins on free ports and seeds them; nothing of Tierlink runs yet. */
export async function startStandIns(clock: ShiftableClock, logger: Logger): Promise<StandIns> {
  const patreon = await createMembershipServiceSandbox({ clock, logger: logger.child({ component: 'membership-sandbox' }) });
  let discord: DiscordSandbox;
  try {
    discord = await createDiscordSandbox({ clock, logger: logger.child({ component: 'discord-sandbox' }) });
  } catch (error) {
    await patreon.close();
    throw error;
  }

  const ownerId = '100000000000000001';
  const guildName = 'Casey’s Fan Club';
  const { guildId } = discord.createGuild({ name: guildName, ownerId });
  // Below the bot's role (inserted at position 1, the bot's role moves up): the bot can manage them.
  const role = (name: string) => discord.createRole(guildId, { name, position: 1 }).id;
  const roles = { gold: role('Gold'), platinum: role('Platinum'), formerPatron: role('Former Patron') };
  const tiers = {
    gold: patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [roles.gold] }).id,
    platinum: patreon.createTier(patreon.campaignId, { title: 'Platinum', amountCents: 2500, chatRoleIds: [roles.platinum] }).id,
  };

  const adaPatreon = patreon.createUser({ fullName: 'Ada Lovelace' });
  const beaPatreon = patreon.createUser({ fullName: 'Bea Trial' });
  const now = clock.now();
  const since = new Date(now.getTime() - 90 * 24 * 3600 * 1000);
  for (const userId of [adaPatreon.id, beaPatreon.id]) {
    // Pledged before Tierlink was installed: no webhook is registered yet, so none is sent.
    patreon.setMembership(
      userId,
      patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [tiers.gold], lastChargeDate: now, lastChargeStatus: 'Paid', pledgeRelationshipStart: since },
      { deliver: false },
    );
  }
  const ada = discord.addMember(guildId, { username: 'ada' });
  const you = discord.addMember(guildId, { username: 'you' });

  let closing: Promise<void> | null = null;
  return {
    clock,
    patreon,
    discord,
    guildId,
    guildName,
    owner: { name: 'casey', discordId: ownerId },
    roles,
    tiers,
    ada: { name: 'ada', discordId: ada.userId, patreonUserId: adaPatreon.id },
    you: { name: 'you', discordId: you.userId },
    bea: { name: beaPatreon.fullName, patreonUserId: beaPatreon.id },
    close() {
      closing ??= (async () => {
        await discord.close();
        await patreon.close();
      })();
      return closing;
    },
  };
}

export interface DemoService {
  tierlink: Tierlink;
  /** Where the web server answers: `http://localhost:PORT`. */
  url: string;
  dataDir: string;
  /** A slash command run by a member through the stand-in's gateway; the final reply. */
  command(userId: string, name: string, options?: CommandOptions): Promise<CommandReply>;
  /** Follows a link button in a reply (`/link`, `/connect`) to the consent page, allows as `patreonUserId`, and loads the result page. */
  followLink(buttonUrl: string, patreonUserId: string): Promise<{ status: number; text: string }>;
  /** Resolves when every webhook delivery Tierlink received is processed (or dead-lettered). */
  waitForInbox(timeoutMs?: number): Promise<void>;
  /** Idempotent. */
  stop(): Promise<void>;
}

/**
 * The real service (`createTierlink`, as `npm start` runs it) on the embedded database in
 * `dataDir`, configured through `parseConfig` with the stand-ins' addresses and credentials.
 */
export async function startService(world: StandIns, options: { dataDir: string; logger: Logger }): Promise<DemoService> {
  const { patreon, discord, clock } = world;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const parsed = parseConfig({
    ...standInEnvironment(patreon, discord, world.guildId),
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'info',
  });
  if (!parsed.ok) throw parsed.error;
  const tierlink = await createTierlink({
    config: parsed.value,
    logger: options.logger,
    clock,
    // The stand-in sends GUILD_CREATE right after READY; no need to wait 15 s for a missing one.
    discordWaitGuildTimeoutMs: 2_000,
  });
  let url: string;
  try {
    ({ url } = await tierlink.start());
  } catch (error) {
    await tierlink.stop().catch(() => undefined);
    throw error;
  }
  // The OAuth client's registered redirect URI: the port is only known now.
  patreon.registerRedirectUri(`${url}/oauth/callback`);

  let stopping: Promise<void> | null = null;
  const service: DemoService = {
    tierlink,
    url,
    dataDir: options.dataDir,

    async command(userId, name, opts = {}) {
      const { interactionId } = discord.injectCommand({
        guildId: world.guildId,
        userId,
        name,
        options: opts.options ?? [],
        ...(opts.permissions !== undefined ? { memberPermissions: opts.permissions } : {}),
      });
      const until = opts.until;
      const record = await discord.waitForInteractionResponse(interactionId, {
        final: true,
        timeoutMs: 15_000,
        ...(until ? { where: (r) => until(typeof r.data?.content === 'string' ? r.data.content : '') } : {}),
      });
      const data = record.data ?? {};
      const rows = (data.components as Array<{ components?: Array<{ url?: string }> }> | undefined) ?? [];
      return {
        content: typeof data.content === 'string' ? data.content : '',
        urls: rows.flatMap((r) => (r.components ?? []).flatMap((c) => (c.url ? [c.url] : []))),
      };
    },

    async followLink(buttonUrl, patreonUserId) {
      const follow = await fetch(buttonUrl, { redirect: 'manual' });
      const authorize = follow.headers.get('location');
      if (follow.status !== 302 || !authorize) throw new DemoStepError(`the link ${buttonUrl} answered ${follow.status}, not a redirect to the consent page`);
      const callback = await patreon.approveAuthorization(authorize, patreonUserId);
      const page = await fetch(callback, { redirect: 'manual' });
      return { status: page.status, text: pageText(await page.text()) };
    },

    async waitForInbox(timeoutMs = 10_000) {
      await patreon.flushDeliveries();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await tierlink.services.repos.webhooks.deliveries();
        if (rows.every((r) => r.status !== 'pending')) return;
        if (Date.now() > deadline) throw new DemoStepError(`webhook deliveries still pending after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },

    stop: () => (stopping ??= tierlink.stop()),
  };
  return service;
}

/** The owner's permissions for admin commands (`/connect`, `/settings`). */
export const OWNER_PERMISSIONS = ADMINISTRATOR;

/** Text of an HTML page without tags: what a person reads. */
export function pageText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .replace(/ ([!?.,;:])/g, '$1')
    .trim();
}

/** Discord markdown and mentions made plain for the terminal. */
export function plainMessage(content: string, roleNames: ReadonlyMap<string, string>): string {
  return content
    .replace(/\*\*/g, '')
    .replace(/<@&(\d+)>/g, (_m, id: string) => `@${roleNames.get(id) ?? id}`)
    .replace(/<@!?(\d+)>/g, (_m, id: string) => `@${id}`);
}

/** Where the embedded database lives inside the demo's temporary folder. */
export const dataDirIn = (dir: string) => path.join(dir, 'data');
