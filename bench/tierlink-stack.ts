import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config';
import { createTierlink } from '../src/main';
import { createLogger } from '../src/edges/outbound/observability/logger';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { standInEnvironment } from '@tierlink/sandbox';
import { openScratchDatabase } from './scratch-database';

/**
 * The stack the interactive benchmarks (bench/link-latency.ts, bench/discord-traffic.ts) measure:
 * both stand-ins over HTTP, a scratch database, and the whole service started as `npm start` starts
 * it (createTierlink + start), its discord.js client on the Discord stand-in's gateway, all in this
 * process and on the real clock. One server, and a role and a tier granting it for each tier asked
 * for, made before Tierlink starts.
 */
export interface TierlinkStack<Tier extends string> {
  patreon: MembershipServiceSandbox;
  discord: DiscordSandbox;
  guildId: string;
  /** Each tier's role on the server. */
  roles: Record<Tier, string>;
  /** Each tier's id on the membership stand-in. */
  tiers: Record<Tier, string>;
  tierlink: Awaited<ReturnType<typeof createTierlink>>;
  /** `PGlite` or `PostgreSQL`, for the figures' names. */
  label: string;
  /** Stops Tierlink and the stand-ins, and removes the database and the data folder. */
  close(): Promise<void>;
}

export interface TierlinkStackOptions<Tier extends string> {
  /** The tiers of the campaign: the title of each (also its role's name) and its price. */
  tiers: Record<Tier, { title: string; amountCents: number }>;
  /** A PostgreSQL server URL whose user may create databases; PGlite on disk without it. */
  postgresUrl?: string;
  /** The Discord stand-in's options (its rate limits, and why they are raised when they are). */
  discordOptions?: Parameters<typeof createDiscordSandbox>[0];
  /**
   * The membership stand-in at Patreon's real limits (100 requests a minute per token, 100 per 2 s
   * per client) in `dialect`, and Tierlink pacing itself to them, as in production. Without it the
   * stand-in counts nothing and Tierlink does not pace to it (see {@link PATREON_RAISED}).
   */
  patreonRealLimits?: { dialect: 'spec' | 'patreon' };
  /** Runs after the stand-ins are seeded and before Tierlink is created (members it must find at start-up). */
  beforeStart?(world: {
    patreon: MembershipServiceSandbox;
    discord: DiscordSandbox;
    guildId: string;
    tiers: Record<Tier, string>;
    roles: Record<Tier, string>;
  }): void | Promise<void>;
}

/**
 * The membership stand-in of these stacks counts nothing, and Tierlink does not pace to it: the
 * figures measured on them are Discord's and Tierlink's (a role after a link or a webhook), a
 * hundred changes in seconds that Patreon's 100 requests a minute per token would hold for minutes.
 */
const PATREON_RAISED = 'the figures are Discord latencies of links and webhooks; Patreon’s budget has its own rows';

const SECRET_KEY = randomBytes(32).toString('base64url');

export async function startTierlinkStack<Tier extends string>(options: TierlinkStackOptions<Tier>): Promise<TierlinkStack<Tier>> {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-bench-stack-'));
    closers.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const db = await openScratchDatabase(options.postgresUrl);
    closers.push(() => db.close());
    const realPatreon = options.patreonRealLimits;
    const patreon = await createMembershipServiceSandbox(
      realPatreon ? { dialect: realPatreon.dialect } : { rateLimits: 'none', raisedLimits: PATREON_RAISED },
    );
    closers.push(() => patreon.close());
    const discord = await createDiscordSandbox(options.discordOptions);
    closers.push(() => discord.close());

    const { guildId } = discord.createGuild({ name: 'Bench Club' });
    const wanted = Object.entries(options.tiers) as Array<[Tier, { title: string; amountCents: number }]>;
    const roles = {} as Record<Tier, string>;
    for (const [key, tier] of wanted) roles[key] = discord.createRole(guildId, { name: tier.title, position: 1 }).id;
    const tiers = {} as Record<Tier, string>;
    for (const [key, tier] of wanted) {
      tiers[key] = patreon.createTier(patreon.campaignId, {
        title: tier.title,
        amountCents: tier.amountCents,
        chatRoleIds: [roles[key]],
      }).id;
    }

    await options.beforeStart?.({ patreon, discord, guildId, tiers, roles });
    const parsed = parseConfig({
      ...standInEnvironment(patreon, discord, guildId),
      PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
      PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
      DATA_DIR: dataDir,
      SECRET_KEY,
      LOG_LEVEL: 'warn',
    });
    if (!parsed.ok) throw parsed.error;
    const tierlink = await createTierlink({
      config: parsed.value,
      logger: createLogger({ level: (process.env.BENCH_LOG_LEVEL as 'warn' | undefined) ?? 'warn', stderr: true }),
      database: db.database,
      discordWaitGuildTimeoutMs: 500,
      ...(realPatreon ? {} : { patreonLimits: { spec: null, patreon: null } }),
    });
    closers.push(() => tierlink.stop());
    const { url } = await tierlink.start();
    patreon.registerRedirectUri(`${url}/oauth/callback`);
    discord.registerRedirectUri(`${url}/discord/callback`);
    return { patreon, discord, guildId, roles, tiers, tierlink, label: db.label, close };
  } catch (error) {
    await close();
    throw error;
  }
}
