import fs from 'node:fs';
import path from 'node:path';
import { type DiscordSandbox, Permission, createDiscordSandbox } from '../discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '../membership-service';
import type { ShiftableClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { DemoStepError } from './timeline';

/**
 * The demo's world: both stand-ins seeded with a creator, a server and a few people, and the
 * service under demonstration, reached over HTTP and through the stand-ins as people reach it. The
 * sandbox imports nothing of the product: the service is started by a {@link StartServiceUnderDemo}
 * that the caller passes in (`demo/` at the repository root wires the real one).
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
  roles: { gold: string; platinum: string; formerPatron: string; kofi: string };
  tiers: { gold: string; platinum: string };
  /** Ko-fi's webhook verification token (KOFI_VERIFICATION_TOKEN), and Finn: in the server, he supports Casey on Ko-fi. */
  kofi: { token: string; finn: { name: string; discordId: string; email: string } };
  ada: DemoPerson;
  /** In the server, not linked: the link page printed after the story is theirs. */
  you: { name: string; discordId: string };
  /** A Gold patron who has not linked: whom to log in as on the link page in a browser. */
  bea: { name: string; patreonUserId: string };
  /** A Gold patron in no server: she joins through the join page. */
  cleo: DemoPerson;
  /** Has an account on the membership service and no pledge: the join page refuses him. */
  dan: DemoPerson;
  /** Idempotent. */
  close(): Promise<void>;
}

const ADMINISTRATOR = Permission.Administrator;

/**
 * The demo tells months of a campaign in a minute, a sync over 5,000 generated members among them:
 * under Discord's 10 role changes per 10 s and Patreon's 100 requests a minute that would take most
 * of an hour. Its stand-ins raise both, and say so; the tests hold the real limits.
 */
export const DEMO_RAISED_LIMITS = 'the demo tells months in a minute, a sync of 5,000 members among them';

/** Starts both stand-ins on free ports and seeds them; nothing of Tierlink runs yet. */
export async function startStandIns(clock: ShiftableClock, logger: Logger): Promise<StandIns> {
  const patreon = await createMembershipServiceSandbox({
    clock,
    logger: logger.child({ component: 'membership-sandbox' }),
    rateLimits: 'none',
    raisedLimits: DEMO_RAISED_LIMITS,
  });
  let discord: DiscordSandbox;
  try {
    discord = await createDiscordSandbox({
      clock,
      logger: logger.child({ component: 'discord-sandbox' }),
      rateLimits: { routes: { 'member-role': { limit: 10_000, windowMs: 1_000 } } },
      raisedLimits: DEMO_RAISED_LIMITS,
    });
  } catch (error) {
    await patreon.close();
    throw error;
  }

  const ownerId = '100000000000000001';
  const guildName = 'Casey’s Fan Club';
  // Invited as the README says: Manage Roles, and Create Invite for the join page.
  const { guildId } = discord.createGuild({
    name: guildName,
    ownerId,
    botPermissions: Permission.ManageRoles | Permission.CreateInstantInvite,
  });
  // Below the bot's role (inserted at position 1, the bot's role moves up): the bot can manage them.
  const role = (name: string) => discord.createRole(guildId, { name, position: 1 }).id;
  const roles = { gold: role('Gold'), platinum: role('Platinum'), formerPatron: role('Former Patron'), kofi: role('Ko-fi Supporter') };
  const tiers = {
    gold: patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [roles.gold] }).id,
    platinum: patreon.createTier(patreon.campaignId, { title: 'Platinum', amountCents: 2500, chatRoleIds: [roles.platinum] }).id,
  };

  const adaPatreon = patreon.createUser({ fullName: 'Ada Lovelace' });
  const beaPatreon = patreon.createUser({ fullName: 'Bea Trial' });
  const cleoPatreon = patreon.createUser({ fullName: 'Cleo Okafor' });
  const danPatreon = patreon.createUser({ fullName: 'Dan Browser' });
  const now = clock.now();
  const since = new Date(now.getTime() - 90 * 24 * 3600 * 1000);
  for (const userId of [adaPatreon.id, beaPatreon.id, cleoPatreon.id]) {
    // Pledged before Tierlink was installed: no webhook is registered yet, so none is sent.
    patreon.setMembership(
      userId,
      patreon.campaignId,
      {
        patronStatus: 'active_patron',
        tierIds: [tiers.gold],
        lastChargeDate: now,
        lastChargeStatus: 'Paid',
        pledgeRelationshipStart: since,
      },
      { deliver: false },
    );
  }
  const ada = discord.addMember(guildId, { username: 'ada' });
  const you = discord.addMember(guildId, { username: 'you' });
  const finn = discord.addMember(guildId, { username: 'finn' });
  // Not in the server: they arrive through the join page.
  const cleo = discord.createUser({ username: 'cleo', globalName: 'Cleo' });
  const dan = discord.createUser({ username: 'dan' });

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
    kofi: { token: 'demo-kofi-verification-token-4f1c', finn: { name: 'finn', discordId: finn.userId, email: 'finn@example.com' } },
    bea: { name: beaPatreon.fullName, patreonUserId: beaPatreon.id },
    cleo: { name: 'cleo', discordId: cleo.id, patreonUserId: cleoPatreon.id },
    dan: { name: 'dan', discordId: dan.id, patreonUserId: danPatreon.id },
    close() {
      closing ??= (async () => {
        await discord.close();
        await patreon.close();
      })();
      return closing;
    },
  };
}

/** A sync report as far as the story reads it (the product's report has this shape and more). */
export interface DemoSyncReport {
  status: string;
  errors: readonly string[];
  guilds: ReadonlyArray<{
    guildId: string;
    planned: { adds: number };
    applied: { adds: number };
    failed: number;
    errors: readonly string[];
    changes: ReadonlyArray<{ userId: string; op: string; roleId: string; roleName: string | null; reason: string }>;
  }>;
}

/** A sync the service ran: its report and the report as the service prints it; or why it did not run. */
export type DemoSyncOutcome = { report: DemoSyncReport; text: string } | { skipped: string };

/** What the story needs of the service it shows, beyond what people reach through Discord and the web. */
export interface ServiceUnderDemo {
  /** Where the web server answers: `http://localhost:PORT`. */
  url: string;
  /** Where the dashboard answers (sign-in with Discord), null when the service runs without it. */
  dashboardUrl: string | null;
  /** Campaigns the service binds to a server. */
  campaignsOf(guildId: string): Promise<string[]>;
  /** A full sync now: `dry-run` is `npm run sync -- --dry-run`, `nightly` what SYNC_SCHEDULE runs. */
  sync(kind: 'dry-run' | 'nightly'): Promise<DemoSyncOutcome>;
  /** Roles the service records as its own grants to a member. */
  grantedRoleIds(guildId: string, userId: string): Promise<string[]>;
  /** Webhook deliveries received and not processed yet. */
  pendingDeliveries(): Promise<number>;
  /** Idempotent. */
  stop(): Promise<void>;
}

/** Starts the service against the stand-ins, its data in `dataDir`. */
export type StartServiceUnderDemo = (world: StandIns, options: { dataDir: string; logger: Logger }) => Promise<ServiceUnderDemo>;

export interface DemoService extends ServiceUnderDemo {
  /** A slash command run by a member through the stand-in's gateway; the final reply. */
  command(userId: string, name: string, options?: CommandOptions): Promise<CommandReply>;
  /**
   * Follows a link button in a reply (`/link`, `/connect`) as a browser does: Discord's sign-in (as
   * `discordUserId`, who ran the command), the service's consent page (allowed as `patreonUserId`),
   * and the result page.
   */
  followLink(buttonUrl: string, discordUserId: string, patreonUserId: string): Promise<{ status: number; text: string }>;
  /** Resolves when every webhook delivery the service received is processed (or dead-lettered). */
  waitForInbox(timeoutMs?: number): Promise<void>;
  /**
   * Signs `userId` in to the dashboard as a browser does (the service's login redirect, Discord's
   * consent page, the callback with the sign-in cookie) and loads `path` with the session: its text.
   */
  dashboardPage(userId: string, path: string): Promise<{ status: number; text: string }>;
  /**
   * A visit to the join page `/join/<slug>` as a browser makes it: the button, the service's consent
   * page (allowed as `patreonUserId`), Discord's (`identify guilds.join`, allowed as `discordUserId`),
   * the result page: its status and text. Stops at the service step when the page refuses there.
   */
  joinPage(slug: string, patreonUserId: string, discordUserId: string): Promise<{ status: number; text: string; askedDiscord: boolean }>;
}

/** The service started by `start`, with what people do through the stand-ins: commands and link pages. */
export async function startService(
  world: StandIns,
  start: StartServiceUnderDemo,
  options: { dataDir: string; logger: Logger },
): Promise<DemoService> {
  const { patreon, discord } = world;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const service = await start(world, options);
  // The OAuth clients' registered redirect URIs: the port is only known now.
  patreon.registerRedirectUri(`${service.url}/oauth/callback`);
  discord.registerRedirectUri(`${service.url}/discord/callback`);
  if (service.dashboardUrl) {
    discord.registerRedirectUri(`${service.dashboardUrl}/callback`);
    discord.registerRedirectUri(`${service.url}/join/callback`);
  }

  return {
    ...service,

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

    async followLink(buttonUrl, discordUserId, patreonUserId) {
      // One browser throughout: it carries the cookies each step set (the sign-in's, then the flow's).
      const jar = new Map<string, string>();
      const get = async (url: string) => {
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        for (const line of res.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const at = pair.indexOf('=');
          if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        return res;
      };
      const signIn = await get(buttonUrl);
      const toDiscord = signIn.headers.get('location');
      if (signIn.status !== 302 || !toDiscord)
        throw new DemoStepError(`the link ${buttonUrl} answered ${signIn.status}, not a redirect to Discord's sign-in`);
      const back = await get(await discord.approveAuthorization(toDiscord, discordUserId));
      const authorize = back.headers.get('location');
      if (back.status !== 302 || !authorize) {
        throw new DemoStepError(
          `Discord's sign-in ended on ${back.status}, not a redirect to the consent page: ${pageText(await back.text())}`,
        );
      }
      const page = await get(await patreon.approveAuthorization(authorize, patreonUserId));
      return { status: page.status, text: pageText(await page.text()) };
    },

    async dashboardPage(userId, pagePath) {
      if (!service.dashboardUrl) throw new DemoStepError('the service runs without its dashboard');
      const cookies = new Map<string, string>();
      const keep = (response: Response) => {
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
      };
      const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const login = await fetch(`${service.dashboardUrl}/login`, { redirect: 'manual' });
      keep(login);
      const authorize = login.headers.get('location');
      if (login.status !== 302 || !authorize) throw new DemoStepError(`the dashboard's sign-in answered ${login.status}`);
      const callback = await discord.approveAuthorization(authorize, userId);
      const signedIn = await fetch(callback, { redirect: 'manual', headers: { cookie: cookie() } });
      keep(signedIn);
      if (signedIn.status !== 303)
        throw new DemoStepError(`the dashboard's callback answered ${signedIn.status}: ${pageText(await signedIn.text())}`);
      const page = await fetch(`${service.url}${pagePath}`, { redirect: 'manual', headers: { cookie: cookie() } });
      return { status: page.status, text: pageText(await page.text()) };
    },

    async joinPage(slug, patreonUserId, discordUserId) {
      const cookies = new Map<string, string>();
      const get = async (url: string) => {
        const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const eq = pair.indexOf('=');
          cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        return response;
      };
      const landing = await get(`${service.url}/join/${slug}`);
      if (landing.status !== 200) throw new DemoStepError(`the join page answered ${landing.status}: ${pageText(await landing.text())}`);
      const start = await get(`${service.url}/join/${slug}/start`);
      const toService = start.headers.get('location');
      if (start.status !== 302 || !toService) throw new DemoStepError(`the join button answered ${start.status}`);
      const afterService = await get(await patreon.approveAuthorization(toService, patreonUserId));
      const toDiscord = afterService.headers.get('location');
      if (afterService.status !== 302 || !toDiscord) {
        return { status: afterService.status, text: pageText(await afterService.text()), askedDiscord: false };
      }
      const done = await get(await discord.approveAuthorization(toDiscord, discordUserId));
      return { status: done.status, text: pageText(await done.text()), askedDiscord: true };
    },

    async waitForInbox(timeoutMs = 10_000) {
      await patreon.flushDeliveries();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await service.pendingDeliveries()) === 0) return;
        if (Date.now() > deadline) throw new DemoStepError(`webhook deliveries still pending after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

/** The owner's permissions for admin commands (`/connect`, `/settings`). */
export const OWNER_PERMISSIONS = ADMINISTRATOR;

/** Text of an HTML page without tags: what a person reads. */
export function pageText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<script[\s\S]*?<\/script>/g, '')
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
