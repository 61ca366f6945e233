import { linkUpToCallback, sendCallback } from './link-flow';
import { startTierlinkStack } from './tierlink-stack';

/**
 * `/link` figures for `npm run bench`, on the whole service and both stand-ins
 * (bench/tierlink-stack.ts). Each link runs the way a patron's browser runs it (bench/link-flow.ts):
 * `/link` is injected, the button's URL is followed, the stand-in's consent page is approved, and
 * the callback is requested.
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
  const stack = await startTierlinkStack({
    tiers: { gold: { title: 'Gold', amountCents: 1000 } },
    postgresUrl: options.postgresUrl,
    discordOptions: {
      rateLimits: { routes: { 'member-role': { limit: 10_000, windowMs: 1_000 } } },
      raisedLimits:
        'a hundred links one after another in one server: the figure is Tierlink’s latency, not the member-role bucket’s (its rows are in "Discord traffic")',
    },
  });
  const { patreon, discord, guildId } = stack;
  try {
    const linkOnce = async (n: number): Promise<Sample> => {
      const user = patreon.createUser({ fullName: `Bench Patron ${n}` });
      patreon.setMembership(
        user.id,
        patreon.campaignId,
        { patronStatus: 'active_patron', tierIds: [stack.tiers.gold], lastChargeStatus: 'Paid', lastChargeDate: new Date() },
        { deliver: false },
      );
      const member = discord.addMember(guildId, { username: `bench${n}` });

      const link = await linkUpToCallback(stack, { n, discordUserId: member.userId, patreonUserId: user.id });
      const { roleMs, pageMs } = await sendCallback(stack, link, stack.roles.gold, 30_000);
      return { replyMs: link.replyMs, roleMs, pageMs };
    };

    for (let i = 0; i < warmup; i++) await linkOnce(-1 - i);
    const samples: Sample[] = [];
    for (let i = 0; i < links; i++) samples.push(await linkOnce(i));

    const sorted = (pick: (s: Sample) => number) => samples.map(pick).sort((a, b) => a - b);
    const role = sorted((s) => s.roleMs);
    const page = sorted((s) => s.pageMs);
    const reply = sorted((s) => s.replyMs);
    const where = `${stack.label}, ${links} links`;
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
    await stack.close();
  }
}
