import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../bench/scratch-database';
import { type Balancer, CookieBrowser, type Instance, type TcpProxy, startBalancer, startInstance, startTcpProxy } from './processes';

/**
 * `npm run soak` (not part of `npm test`): ten minutes of ordinary traffic and bad luck against two
 * real `npm start` processes on one PostgreSQL, through the stand-ins at their real limits (none is
 * raised). Ordinary traffic: pledges, tier changes, ended pledges, members leaving and rejoining,
 * `/link` through a browser, `/status`, a `/sync` and the scheduled syncs. Bad luck: a SIGKILL of a
 * random instance every minute (restarted a few seconds later), two database outages (11 s, inside
 * the 15 s shard lease, and 25 s, past it) made by cutting a TCP proxy in front of PostgreSQL (the
 * server itself is shared and never touched), and a flood of 2,000 forged webhook deliveries.
 *
 * At the end, once the service's queues are empty: every member's roles must equal what the stand-ins
 * say (Patreon's memberships, who linked, who is in the server), no role was granted more often than
 * the model's changes call for (Discord's idempotent answers to a repeated PUT are counted apart), no
 * delivery was dead-lettered, and both instances are healthy. The figures are printed; the exit
 * code is 0 only when all of that holds. A rejoin that happened while no instance held the gateway
 * is restored by the next sync, not by the event (Discord does not replay events to a new session):
 * the mismatches before the final `/sync` are printed too.
 *
 * Needs PostgreSQL: SOAK_DATABASE_URL or DATABASE_URL, whose user may create databases (a scratch
 * database is created and dropped). SOAK_MINUTES shortens or lengthens the run (default 10).
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const ADMIN = 1n << 3n;
const SECRET_KEY = 'soak-secret-key-that-is-long-enough-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Tier = 'bronze' | 'silver' | 'gold';
const TIERS: readonly Tier[] = ['bronze', 'silver', 'gold'];

interface Patron {
  name: string;
  discordUserId: string;
  patreonUserId: string;
  /** Patreon names the Discord account (social connection): linked by the first read, no click. */
  social: boolean;
  linked: boolean;
  inGuild: boolean;
  /** Active patron of this tier, or not a patron (never, or the pledge ended). */
  tier: Tier | null;
}

/** A small deterministic PRNG (mulberry32), so a run can be repeated with SOAK_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main(): Promise<number> {
  const adminUrl = process.env.SOAK_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) {
    process.stderr.write(
      'npm run soak needs PostgreSQL: set SOAK_DATABASE_URL or DATABASE_URL (its user must be able to create databases).\n',
    );
    return 2;
  }
  const durationMs = Number(process.env.SOAK_MINUTES ?? 10) * MINUTE;
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const log = (message: string) => process.stdout.write(`[${((Date.now() - began) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
  const began = Date.now();

  const patreon: MembershipServiceSandbox = await createMembershipServiceSandbox();
  const discord: DiscordSandbox = await createDiscordSandbox({ botPublic: false });
  const scratch: ScratchPostgres = await createScratchPostgres(adminUrl, 'tierlink_soak');
  const target = new URL(scratch.url);
  const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(scratch.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const balancer: Balancer = await startBalancer();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-soak-'));
  const db = new Client({ connectionString: scratch.url });
  await db.connect();
  const instances: Instance[] = [];

  const figures = {
    seed,
    events: {} as Record<string, number>,
    kills: 0,
    restarts: 0,
    outages: [] as string[],
    forged: { sent: 0, answers: {} as Record<string, number> },
    commands: { sent: 0, answered: 0 },
    links: { attempted: 0, linked: 0 },
    webhookPauses: 0,
  };
  const count = (kind: string) => (figures.events[kind] = (figures.events[kind] ?? 0) + 1);

  try {
    // ---- the world -----------------------------------------------------------------------------
    const ownerId = '100000000000000099';
    const { guildId } = discord.createGuild({ name: 'Soak Club', ownerId });
    const roles = Object.fromEntries(TIERS.map((t) => [t, discord.createRole(guildId, { name: t, position: 1 }).id])) as Record<
      Tier,
      string
    >;
    const tierIds = Object.fromEntries(
      TIERS.map((t, i) => [
        t,
        patreon.createTier(patreon.campaignId, { title: t, amountCents: 300 + 300 * i, chatRoleIds: [roles[t]] }).id,
      ]),
    ) as Record<Tier, string>;
    const patrons: Patron[] = [];
    for (let i = 0; i < 45; i++) {
      const social = i < 30;
      const name = `patron${i}`;
      const discordUserId = discord.addMember(guildId, { username: name }).userId;
      const user = patreon.createUser({ fullName: name, ...(social ? { discordUserId } : {}) });
      patrons.push({ name, discordUserId, patreonUserId: user.id, social, linked: social, inGuild: true, tier: null });
    }
    const bystanders = Array.from({ length: 10 }, (_, i) => discord.addMember(guildId, { username: `member${i}` }).userId);
    patreon.registerRedirectUri(`${balancer.url}/oauth/callback`);
    discord.registerRedirectUri(`${balancer.url}/discord/callback`);

    // The model's expected roles, and how many grants its changes call for (per member and role).
    const expected = (p: Patron): string[] => (p.inGuild && p.linked && p.tier ? [roles[p.tier]] : []);
    const grantsCalledFor = new Map<string, number>();
    const change = (p: Patron, mutate: () => void) => {
      const before = new Set(expected(p));
      mutate();
      for (const roleId of expected(p)) {
        if (before.has(roleId)) continue;
        const key = `${p.discordUserId}:${roleId}`;
        grantsCalledFor.set(key, (grantsCalledFor.get(key) ?? 0) + 1);
      }
    };
    const pledge = (p: Patron, tier: Tier | null, deliver = true) =>
      change(p, () => {
        patreon.setMembership(
          p.patreonUserId,
          patreon.campaignId,
          tier
            ? { patronStatus: 'active_patron', tierIds: [tierIds[tier]], lastChargeDate: new Date(), lastChargeStatus: 'Paid' }
            : { patronStatus: 'former_patron', tierIds: [] },
          { deliver },
        );
        p.tier = tier;
      });
    // Half the patrons pledge before the service starts: the first sync grants their roles.
    for (const p of patrons) if (random() < 0.5) pledge(p, pick(TIERS), false);

    // ---- the instances ---------------------------------------------------------------------------
    const env: Record<string, string> = {
      ...standInEnvironment(patreon, discord, guildId),
      DATABASE_URL: viaProxy.toString(),
      SECRET_KEY,
      PUBLIC_URL: balancer.url,
      LOG_LEVEL: 'info',
      PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
      PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
      // The scheduled sync every four minutes (the nightly one, brought into the soak's ten).
      SYNC_SCHEDULE: '*/4 * * * *',
    };
    let generation = 0;
    const launch = (slot: 'a' | 'b'): Instance => {
      const name = `${slot}${++generation}`;
      const dir = path.join(workDir, name);
      fs.mkdirSync(dir);
      const instance = startInstance(name, env, dir);
      instances.push(instance);
      void instance
        .logged((l) => l.msg === 'Tierlink is running', 120_000)
        .then(
          () => {
            if (instance.alive()) balancer.targets = [...balancer.targets, instance.url];
          },
          () => undefined,
        );
      void instance.exited.then(() => {
        balancer.targets = balancer.targets.filter((t) => t !== instance.url);
      });
      return instance;
    };
    const slots = new Map<'a' | 'b', Instance>([
      ['a', launch('a')],
      ['b', launch('b')],
    ]);
    await Promise.all([...slots.values()].map((i) => i.logged((l) => l.msg === 'Tierlink is running', 120_000)));
    log(`two instances running (seed ${seed}); the soak runs ${durationMs / MINUTE} minutes`);

    // ---- what people do --------------------------------------------------------------------------
    const command = async (userId: string, name: string, permissions = 0n) => {
      figures.commands.sent += 1;
      try {
        const { interactionId } = discord.injectCommand({ guildId, userId, name, memberPermissions: permissions });
        const answer = await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 20_000 });
        figures.commands.answered += 1;
        return answer;
      } catch {
        return null;
      }
    };
    const isLinked = async (p: Patron) =>
      (await db.query('select 1 from links where discord_user_id = $1', [p.discordUserId])).rows.length > 0;
    const linkThroughBrowser = async (p: Patron): Promise<void> => {
      figures.links.attempted += 1;
      try {
        const answer = await command(p.discordUserId, 'link');
        const components = (answer?.data?.components ?? []) as Array<{ components?: Array<{ url?: string }> }>;
        const url = components.flatMap((c) => c.components ?? []).find((c) => c.url)?.url;
        if (!url) return;
        const browser = new CookieBrowser();
        // The link page signs the person in with Discord first (as the account that ran /link), then
        // sends them to the service's consent page.
        let follow = await browser.get(url);
        if (follow.status !== 302 || !follow.location) return;
        if (follow.location.startsWith(`${discord.webBaseUrl}/`)) {
          follow = await browser.get(await discord.approveAuthorization(follow.location, p.discordUserId));
          if (follow.status !== 302 || !follow.location) return;
        }
        const callback = await patreon.approveAuthorization(follow.location, p.patreonUserId);
        await browser.get(callback);
      } catch {
        // The instance that served a step was killed, or the database was away: the person tries again later.
      } finally {
        // What the person would see with /status: the service's own record decides.
        if (await isLinked(p).catch(() => false)) {
          change(p, () => (p.linked = true));
          figures.links.linked += 1;
        }
      }
    };

    const events: Array<[number, () => Promise<void> | void]> = [
      [
        40,
        () => {
          const p = pick(patrons);
          count('pledge or tier change');
          pledge(p, pick(TIERS));
        },
      ],
      [
        12,
        () => {
          const p = pick(patrons.filter((x) => x.tier !== null));
          if (!p) return;
          count('pledge ended');
          pledge(p, null);
        },
      ],
      [
        14,
        async () => {
          const p = pick(patrons.filter((x) => x.inGuild));
          if (!p) return;
          count('rejoin');
          change(p, () => {
            discord.removeMember(guildId, p.discordUserId);
            p.inGuild = false;
          });
          await sleep(500);
          change(p, () => {
            discord.addMember(guildId, { userId: p.discordUserId, username: p.name });
            p.inGuild = true;
          });
        },
      ],
      [
        4,
        () => {
          const p = pick(patrons.filter((x) => x.inGuild));
          if (!p) return;
          count('leave');
          change(p, () => {
            discord.removeMember(guildId, p.discordUserId);
            p.inGuild = false;
          });
        },
      ],
      [
        4,
        () => {
          const p = pick(patrons.filter((x) => !x.inGuild));
          if (!p) return;
          count('come back');
          change(p, () => {
            discord.addMember(guildId, { userId: p.discordUserId, username: p.name });
            p.inGuild = true;
          });
        },
      ],
      [
        10,
        async () => {
          const p = pick(patrons.filter((x) => !x.linked && x.inGuild));
          if (!p) return;
          count('/link');
          await linkThroughBrowser(p);
        },
      ],
      [
        12,
        async () => {
          count('/status');
          await command(pick([...patrons.map((p) => p.discordUserId), ...bystanders]), 'status');
        },
      ],
    ];
    const totalWeight = events.reduce((sum, [w]) => sum + w, 0);
    const nextEvent = () => {
      let r = random() * totalWeight;
      for (const [weight, run] of events) {
        r -= weight;
        if (r < 0) return run;
      }
      return events[0]![1];
    };

    // ---- bad luck ----------------------------------------------------------------------------------
    const timers: NodeJS.Timeout[] = [];
    const at = (ms: number, what: () => Promise<void> | void) =>
      timers.push(setTimeout(() => void Promise.resolve(what()).catch((e: unknown) => log(`error: ${String(e)}`)), ms));
    for (let kill = MINUTE; kill < durationMs; kill += MINUTE) {
      at(kill, async () => {
        const slot = pick(['a', 'b'] as const);
        const victim = slots.get(slot)!;
        if (!victim.alive()) return;
        victim.child.kill('SIGKILL');
        figures.kills += 1;
        log(`SIGKILL ${victim.name}`);
        await victim.exited;
        await sleep(3 * SECOND);
        const fresh = launch(slot);
        slots.set(slot, fresh);
        figures.restarts += 1;
        await fresh.logged((l) => l.msg === 'Tierlink is running', 120_000).catch(() => undefined);
        log(`${fresh.name} running in place of ${victim.name}`);
      });
    }
    const outage = (startMs: number, lengthMs: number) =>
      at(startMs, async () => {
        log(`database outage: the proxy is cut for ${lengthMs / SECOND} s`);
        proxy.cut();
        await sleep(lengthMs);
        proxy.restore();
        figures.outages.push(`${lengthMs / SECOND} s at ${Math.round(startMs / SECOND)} s`);
        log('database back');
      });
    outage(Math.round(durationMs * 0.25), 11 * SECOND);
    outage(Math.round(durationMs * 0.65), 25 * SECOND);
    at(Math.round(durationMs * 0.45), async () => {
      log('flood: 2,000 forged webhook deliveries');
      const send = async () => {
        const body = JSON.stringify({ data: { type: 'member', id: randomBytes(8).toString('hex'), attributes: {} } });
        const res = await fetch(`${balancer.url}/webhooks/patreon`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-patreon-event': 'members:update',
            'x-patreon-signature': randomBytes(16).toString('hex'),
          },
          body,
        }).catch(() => null);
        figures.forged.sent += 1;
        const key = res ? String(res.status) : 'no answer';
        figures.forged.answers[key] = (figures.forged.answers[key] ?? 0) + 1;
      };
      for (let i = 0; i < 100; i++) await Promise.all(Array.from({ length: 20 }, send));
    });
    // A sync early (the roles of those who pledged before the start) and one halfway.
    at(20 * SECOND, async () => {
      count('/sync');
      await command(ownerId, 'sync', ADMIN);
    });
    at(Math.round(durationMs * 0.5), async () => {
      count('/sync');
      await command(ownerId, 'sync', ADMIN);
    });
    // Patreon's own retry schedule for a webhook whose deliveries failed (it keeps them queued).
    let pausedNow = false;
    const retries = setInterval(() => {
      const webhooks = patreon.webhooks();
      const paused = webhooks.some((w) => w.paused);
      if (paused && !pausedNow) figures.webhookPauses += 1;
      pausedNow = paused;
      for (const webhook of webhooks) if (webhook.queued > 0 && !webhook.paused) patreon.retryWebhook(webhook.id);
    }, 5 * SECOND);

    // ---- the run -----------------------------------------------------------------------------------
    const end = Date.now() + durationMs;
    while (Date.now() < end) {
      await nextEvent()();
      await sleep(1000 + random() * 1500);
    }
    for (const t of timers) clearTimeout(t);
    proxy.restore();
    log(`events over: ${Object.values(figures.events).reduce((a, b) => a + b, 0)} events`);

    // ---- settling ----------------------------------------------------------------------------------
    const quietBy = Date.now() + 5 * MINUTE;
    for (;;) {
      const webhooks = patreon.webhooks();
      const queued = webhooks.reduce((sum, w) => sum + w.queued, 0);
      const { rows } = await db.query<{ pending: number; dead: number }>(
        `select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'dead')::int as dead from webhook_inbox`,
      );
      const live = [...slots.values()].every((i) => i.alive() && balancer.targets.includes(i.url));
      if (queued === 0 && rows[0]!.pending === 0 && live) break;
      if (Date.now() > quietBy) {
        log(`not quiet after 5 minutes: ${queued} deliveries queued at Patreon, ${rows[0]!.pending} pending in the inbox`);
        break;
      }
      await sleep(2 * SECOND);
    }
    clearInterval(retries);
    await sleep(10 * SECOND);

    const mismatches = () => {
      const out: string[] = [];
      for (const p of patrons) {
        if (!p.inGuild) continue;
        const want = expected(p).sort();
        const have = discord
          .memberRoles(guildId, p.discordUserId)
          .filter((r) => Object.values(roles).includes(r))
          .sort();
        if (want.join() !== have.join()) out.push(`${p.name}: has [${have.join()}], should have [${want.join()}]`);
      }
      for (const userId of bystanders)
        if (discord.memberRoles(guildId, userId).length > 0) out.push(`${userId}: a member with no pledge holds roles`);
      return out;
    };
    const beforeSync = mismatches();
    log(`before the final /sync: ${beforeSync.length} mismatches${beforeSync.length ? `\n  ${beforeSync.join('\n  ')}` : ''}`);
    const finalSync = await command(ownerId, 'sync', ADMIN);
    await sleep(10 * SECOND);
    const afterSync = mismatches();

    const events_ = discord.roleEvents().filter((e) => e.via === 'rest');
    const adds = new Map<string, number>();
    for (const e of events_.filter((x) => x.op === 'add'))
      adds.set(`${e.userId}:${e.roleId}`, (adds.get(`${e.userId}:${e.roleId}`) ?? 0) + 1);
    let extraGrants = 0;
    for (const [key, n] of adds) extraGrants += Math.max(0, n - (grantsCalledFor.get(key) ?? 0));
    const puts = discord.requests({ route: 'PUT /guilds/:g/members/:u/roles/:r' }).filter((r) => r.status < 300).length;
    const deletes = discord.requests({ route: 'DELETE /guilds/:g/members/:u/roles/:r' }).filter((r) => r.status < 300).length;
    const rateLimited = discord.rateLimitHits().length;
    const { rows: inbox } = await db.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from webhook_inbox group by status`,
    );
    const dead = inbox.find((r) => r.status === 'dead')?.n ?? 0;
    const { rows: deadJobs } = await db.query<{ n: number }>(`select count(*)::int as n from jobs where status = 'dead'`);
    const health = await Promise.all(
      [...slots.values()].map(
        async (i) =>
          (await fetch(`${i.url}/healthz`)
            .then((r) => r.status)
            .catch(() => 0)) === 200,
      ),
    );
    const deliveries = patreon.deliveries();

    const ok =
      afterSync.length === 0 &&
      extraGrants === 0 &&
      dead === 0 &&
      (deadJobs[0]?.n ?? 0) === 0 &&
      health.every(Boolean) &&
      finalSync !== null;
    const table: Array<[string, string]> = [
      ['seed (SOAK_SEED)', String(seed)],
      ['duration', `${((Date.now() - began) / MINUTE).toFixed(1)} min (events for ${durationMs / MINUTE} min)`],
      [
        'events',
        `${Object.values(figures.events).reduce((a, b) => a + b, 0)}: ${Object.entries(figures.events)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      ],
      ['instances killed (SIGKILL) / restarted', `${figures.kills} / ${figures.restarts}`],
      ['database outages', figures.outages.join('; ')],
      [
        'forged deliveries',
        `${figures.forged.sent}: ${Object.entries(figures.forged.answers)
          .map(([k, v]) => `${k} × ${v}`)
          .join(', ')}`,
      ],
      [
        'webhook deliveries by Patreon',
        `${deliveries.length}: ${deliveries.filter((d) => d.ok).length} accepted, ${deliveries.filter((d) => !d.ok).length} refused or failed (retried)`,
      ],
      [
        'webhook paused by Patreon (seen)',
        `${figures.webhookPauses} time(s); ${patreon.webhooks().some((w) => w.paused) ? 'still paused' : 'not paused at the end'}`,
      ],
      ['inbox at the end', inbox.map((r) => `${r.status} ${r.n}`).join(', ') || 'empty'],
      ['commands answered', `${figures.commands.answered} of ${figures.commands.sent}`],
      ['/link through a browser', `${figures.links.linked} linked of ${figures.links.attempted} tries`],
      [
        'role requests',
        `${puts} PUT, ${deletes} DELETE; ${puts - events_.filter((e) => e.op === 'add').length} PUTs answered idempotently (the member held the role)`,
      ],
      ['grants beyond what the changes call for', String(extraGrants)],
      ['429 from Discord', String(rateLimited)],
      ['mismatches before the final /sync', String(beforeSync.length)],
      ['final mismatches', String(afterSync.length)],
      ['dead letters (inbox, jobs)', `${dead}, ${deadJobs[0]?.n ?? 0}`],
      ['instances healthy at the end', `${health.filter(Boolean).length} of ${health.length}`],
    ];
    const width = Math.max(...table.map(([k]) => k.length));
    process.stdout.write(`\nTierlink soak\n${table.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`);
    if (afterSync.length > 0) process.stdout.write(`final mismatches:\n  ${afterSync.join('\n  ')}\n`);
    process.stdout.write(ok ? '\nPASS\n' : '\nFAIL\n');
    return ok ? 0 : 1;
  } finally {
    for (const i of instances) if (i.alive()) i.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.exited));
    await db.end().catch(() => undefined);
    await balancer.close();
    await proxy.close();
    await discord.close();
    await patreon.close();
    await scratch.drop().catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
