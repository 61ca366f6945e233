import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../src/config';
import { createTierlink } from '../src/main';
import { createLogger } from '../src/edges/observability/logger';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { standInEnvironment } from '@tierlink/sandbox';
import { openScratchDatabase } from './scratch-database';

/**
 * `/link` figures for `npm run bench` (issue 3): the whole service started as `npm start` starts it
 * (createTierlink + start), the real discord.js client on the Discord stand-in's gateway, and both
 * stand-ins over HTTP, all in this process and on the real clock. Each link runs the way a patron's
 * browser runs it: `/link` is injected, the button's URL is followed, the stand-in's consent page
 * is approved, and the callback is requested.
 *
 * - callback → role: from sending the callback request to the tier's role appearing on the member
 *   in the Discord stand-in (a waiter on its state, armed before the request is sent);
 * - callback → page: from sending the callback request to the result page's last byte;
 * - `/link` reply: from the interaction's dispatch to the bot's reply (Discord allows 3 s).
 *
 * Links run one after another (one patron at a time), after a few warm-up links that are not
 * counted. The database is PGlite on disk (the default) or, with `postgresUrl`, a scratch
 * PostgreSQL database created and dropped.
 */
export interface LinkBenchOptions {
  /** Counted links. Default 100. */
  links?: number;
  /** Uncounted links first (JIT, caches, pools). Default 5. */
  warmup?: number;
  /** A PostgreSQL server URL whose user may create databases; PGlite on disk without it. */
  postgresUrl?: string;
}

export interface BenchRow {
  name: string;
  value: string;
  goal?: string;
}

const SECRET_KEY = randomBytes(32).toString('base64url');

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Sample {
  replyMs: number;
  roleMs: number;
  pageMs: number;
}

export async function runLinkLatencyBenchmark(options: LinkBenchOptions = {}): Promise<BenchRow[]> {
  const links = options.links ?? 100;
  const warmup = options.warmup ?? 5;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-bench-link-'));
  const patreon = await createMembershipServiceSandbox();
  const discord = await createDiscordSandbox();
  const db = await openScratchDatabase(options.postgresUrl);
  let tierlink: Awaited<ReturnType<typeof createTierlink>> | null = null;
  try {
    const { guildId } = discord.createGuild({ name: 'Bench Club' });
    const goldRole = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
    const goldTier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [goldRole] }).id;

    const parsed = parseConfig({
      ...standInEnvironment(patreon, discord, guildId),
      PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
      PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
      DATA_DIR: dataDir,
      SECRET_KEY,
      LOG_LEVEL: 'warn',
    });
    if (!parsed.ok) throw parsed.error;
    tierlink = await createTierlink({
      config: parsed.value,
      logger: createLogger({ level: 'warn', stderr: true }),
      database: db.database,
      discordWaitGuildTimeoutMs: 500,
    });
    const { url } = await tierlink.start();
    patreon.registerRedirectUri(`${url}/oauth/callback`);

    const linkOnce = async (n: number): Promise<Sample> => {
      const user = patreon.createUser({ fullName: `Bench Patron ${n}` });
      patreon.setMembership(
        user.id,
        patreon.campaignId,
        { patronStatus: 'active_patron', tierIds: [goldTier], lastChargeStatus: 'Paid', lastChargeDate: new Date() },
        { deliver: false },
      );
      const member = discord.addMember(guildId, { username: `bench${n}` });

      const injected = performance.now();
      const { interactionId } = discord.injectCommand({ guildId, userId: member.userId, name: 'link', memberPermissions: 0n });
      const reply = await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
      const replyMs = performance.now() - injected;
      const rows = (reply.data?.components as Array<{ components?: Array<{ url?: string }> }> | undefined) ?? [];
      const button = rows.flatMap((r) => r.components ?? []).find((c) => c.url)?.url;
      if (!button) throw new Error(`no button in the /link reply: ${JSON.stringify(reply.data)}`);

      // Each patron from an address of their own, as through a proxy (Tierlink trusts a loopback proxy's
      // X-Forwarded-For): the per-address limits of /link and /oauth/callback are for one person.
      const address = { 'x-forwarded-for': `198.18.${Math.floor(n / 250) + 1}.${(n % 250) + 1}` };
      const follow = await fetch(button, { redirect: 'manual', headers: address });
      await follow.arrayBuffer();
      const authorizeUrl = follow.headers.get('location');
      if (follow.status !== 302 || !authorizeUrl) throw new Error(`following the link answered ${follow.status}`);
      const callback = await patreon.approveAuthorization(authorizeUrl, user.id);

      const sent = performance.now();
      const role = discord
        .waitForMemberRole(guildId, member.userId, goldRole, { present: true, timeoutMs: 30_000 })
        .then(() => performance.now());
      // The patron's browser comes back with the flow's cookie the link set.
      const cookie = follow.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
      const res = await fetch(callback, { redirect: 'manual', headers: { cookie, ...address } });
      await res.arrayBuffer();
      const pageAt = performance.now();
      if (res.status !== 200) throw new Error(`the callback answered ${res.status}`);
      const roleAt = await role;
      return { replyMs, roleMs: roleAt - sent, pageMs: pageAt - sent };
    };

    for (let i = 0; i < warmup; i++) await linkOnce(-1 - i);
    const samples: Sample[] = [];
    for (let i = 0; i < links; i++) samples.push(await linkOnce(i));

    const sorted = (pick: (s: Sample) => number) => samples.map(pick).sort((a, b) => a - b);
    const role = sorted((s) => s.roleMs);
    const page = sorted((s) => s.pageMs);
    const reply = sorted((s) => s.replyMs);
    const where = `${db.label}, ${links} links`;
    return [
      { name: `/link callback → role on Discord, median (${where})`, value: ms(percentile(role, 50)), goal: 'feels instant: < 300 ms' },
      { name: `/link callback → role on Discord, p99 (${where})`, value: ms(percentile(role, 99)), goal: '< 1 s' },
      {
        name: `/link callback → result page, median (${where})`,
        value: ms(percentile(page, 50)),
        goal: 'the role is there before the page',
      },
      { name: `/link callback → result page, p99 (${where})`, value: ms(percentile(page, 99)) },
      { name: `/link command → reply, p99 (${where})`, value: ms(percentile(reply, 99)), goal: 'Discord’s window: < 3 s' },
    ];
  } finally {
    await tierlink?.stop();
    await discord.close();
    await patreon.close();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
