import { shardIdForGuild } from '@tierlink/sandbox/discord';
import { onPostgres } from '../support/test-database';
import { type InstanceProcess, type InstancesWorld, createInstancesWorld, eventually } from '../support/instances';

/**
 * Several `npm start` processes on one PostgreSQL against the stand-ins (docs/decisions.md
 * §17): one gateway session per shard, each command answered once, each event handled once, a
 * graceful stop handing the gateway over within 5 s and a killed holder replaced within 30 s.
 * Two processes cannot share the embedded database (the second refuses DATA_DIR,
 * test/cli/process.test.ts): these tests need DATABASE_URL.
 */
const onPg = onPostgres();
if (!onPg) console.log('test/cli/instances.test.ts: skipped: several instances need PostgreSQL (run with DATABASE_URL)');
const pgTest = onPg ? test : test.skip;

const ADMIN = 1n << 3n;
const CALLBACK = 'POST /interactions/:i/:t/callback';
const PUT_ROLE = 'PUT /guilds/:g/members/:u/roles/:r';
const DELETE_ROLE = 'DELETE /guilds/:g/members/:u/roles/:r';

let world: InstancesWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends a command and waits for its final answer; the interaction's every response. */
async function command(w: InstancesWorld, userId: string, name: string, options: Array<Record<string, unknown>> = [], perms = 0n) {
  const { interactionId } = w.discord.injectCommand({ guildId: w.guildId, userId, name, options, memberPermissions: perms });
  const final = await w.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 15_000 });
  return { interactionId, final };
}

/** Waits a moment for late duplicates, then: exactly one callback, and no callback Discord refused (40060). */
async function answeredOnce(w: InstancesWorld, interactionId: string): Promise<void> {
  await sleep(1500);
  expect(w.discord.interactionResponses(interactionId).filter((r) => r.kind === 'callback')).toHaveLength(1);
  expect(w.discord.requests({ route: CALLBACK }).filter((r) => r.status >= 400)).toEqual([]);
}

/** How many instances hold a session of each shard (from their /healthz), and the sessions the gateway sees. */
async function holders(w: InstancesWorld): Promise<Map<number, string[]>> {
  const byShard = new Map<number, string[]>();
  for (const instance of w.instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null && i.url)) {
    for (const shard of await instance.shards()) byShard.set(shard, [...(byShard.get(shard) ?? []), instance.name]);
  }
  return byShard;
}

const connectedSessions = (w: InstancesWorld) => w.discord.gatewaySessions().filter((s) => s.connected);

/** A patron who is a member of the guild and carries the Discord id on Patreon (linked by the first webhook). */
function patron(w: InstancesWorld, name: string) {
  const discordUserId = w.discord.addMember(w.guildId, { username: name }).userId;
  const user = w.patreon.createUser({ fullName: name, discordUserId });
  return { discordUserId, patreonUserId: user.id };
}

function pledge(w: InstancesWorld, p: { patreonUserId: string }, tierId: string) {
  w.patreon.setMembership(p.patreonUserId, w.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [tierId],
    lastChargeDate: new Date(),
    lastChargeStatus: 'Paid',
  });
}

const roleRequests = (w: InstancesWorld, route: string, guildId: string, userId: string, roleId: string) =>
  w.discord.requests({ route }).filter((r) => r.path.endsWith(`/guilds/${guildId}/members/${userId}/roles/${roleId}`) && r.status < 300);

/**
 * A command sent every 250 ms, each waiting up to Discord's 3 s for its answer, until one is answered:
 * the time from `since` to the first answer by one of `by` (a command delivered to a session nobody holds any more
 * stays unanswered; the next one reaches the new holder).
 */
async function firstAnswerAfter(
  w: InstancesWorld,
  since: number,
  userId: string,
  timeoutMs: number,
  by: InstanceProcess[],
): Promise<number> {
  const deadline = since + timeoutMs;
  let answeredAt: number | null = null;
  const probes: Array<Promise<void>> = [];
  while (answeredAt === null && Date.now() < deadline) {
    try {
      const { interactionId } = w.discord.injectCommand({ guildId: w.guildId, userId, name: 'status' });
      probes.push(
        w.discord.waitForInteractionResponse(interactionId, { timeoutMs: 3_000 }).then(
          () => {
            const at = Date.now();
            // Answered by one of `by` (not by the instance on its way out).
            if (by.some((i) => i.lines.some((l) => l.msg === 'interaction received' && l.id === interactionId))) answeredAt ??= at;
          },
          () => undefined,
        ),
      );
    } catch {
      // No session of the guild's shard at all right now.
    }
    await sleep(250);
  }
  await Promise.all(probes);
  if (answeredAt === null) throw new Error(`no command answered within ${timeoutMs} ms`);
  return answeredAt - since;
}

pgTest(
  'three instances, then two, then one: one gateway session; every command, rejoin and webhook change handled once (three and two); a graceful stop hands over within 5 s, a SIGKILL within 30 s',
  async () => {
    const w = (world = await createInstancesWorld());
    const [a, b, c] = ['a', 'b', 'c'].map((name) => w.start(name));
    await Promise.all([a!, b!, c!].map((i) => w.running(i)));

    // One session of the one shard, held by one instance.
    await eventually('one instance holds shard 0', async () => (await holders(w)).get(0)?.length === 1);
    expect([...(await holders(w)).keys()]).toEqual([0]);
    expect(connectedSessions(w)).toHaveLength(1);
    // The two others say on /healthz that they hold no shard, and are not in trouble for it.
    const holderOfShard = (await holders(w)).get(0)![0]!;
    for (const other of w.instances.filter((i) => i.name !== holderOfShard)) {
      const health = (await (await fetch(`${other.url}/healthz`)).json()) as { checks: { discordGateway: unknown } };
      expect(health.checks.discordGateway).toMatchObject({
        ok: true,
        detail: 'holds no shard: other instances hold the gateway',
        shards: [],
      });
    }

    // A webhook change is one set of role requests, whichever instance works the delivery.
    const p = patron(w, 'pat');
    pledge(w, p, w.tiers.gold);
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.gold, { present: true, timeoutMs: 30_000 });
    pledge(w, p, w.tiers.silver);
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.silver, { present: true, timeoutMs: 30_000 });
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.gold, { present: false, timeoutMs: 30_000 });
    await sleep(2000);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.gold)).toHaveLength(1);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.silver)).toHaveLength(1);
    expect(roleRequests(w, DELETE_ROLE, w.guildId, p.discordUserId, w.roles.gold)).toHaveLength(1);

    // Commands: each answered once.
    for (const name of ['status', 'link', 'tiers']) {
      const { interactionId, final } = await command(w, name === 'tiers' ? w.ownerId : p.discordUserId, name, [], ADMIN);
      expect(final.data).not.toBeNull();
      await answeredOnce(w, interactionId);
    }

    // A rejoin (GUILD_MEMBER_ADD) is one PUT.
    w.discord.removeMember(w.guildId, p.discordUserId);
    w.discord.addMember(w.guildId, { userId: p.discordUserId, username: 'pat' });
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.silver, { present: true, timeoutMs: 30_000 });
    await sleep(2000);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.silver)).toHaveLength(2);

    // A graceful stop of the holder: another instance answers within 5 s.
    const holderName = (await holders(w)).get(0)![0]!;
    const holder = w.instances.find((i) => i.name === holderName)!;
    const stopAt = Date.now();
    holder.child.kill('SIGTERM');
    const others = w.instances.filter((i) => i !== holder);
    const handoverMs = await firstAnswerAfter(w, stopAt, p.discordUserId, 30_000, others);
    console.log(`graceful stop of the gateway holder → a command answered by another instance: ${handoverMs} ms`);
    expect(handoverMs).toBeLessThan(5_000);
    expect(await holder.exited).toBe(0);
    w.balancer.targets = w.balancer.targets.filter((t) => t !== holder.url);

    // Two instances: still one session, commands and rejoins once.
    await eventually('one connected session', () => connectedSessions(w).length === 1);
    const { interactionId } = await command(w, p.discordUserId, 'status');
    await answeredOnce(w, interactionId);
    w.discord.removeMember(w.guildId, p.discordUserId);
    w.discord.addMember(w.guildId, { userId: p.discordUserId, username: 'pat' });
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.silver, { present: true, timeoutMs: 30_000 });
    await sleep(2000);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.silver)).toHaveLength(3);
    // A webhook change with two instances: one set of role requests too.
    pledge(w, p, w.tiers.gold);
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.gold, { present: true, timeoutMs: 30_000 });
    await w.discord.waitForMemberRole(w.guildId, p.discordUserId, w.roles.silver, { present: false, timeoutMs: 30_000 });
    await sleep(2000);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.gold)).toHaveLength(2);
    expect(roleRequests(w, DELETE_ROLE, w.guildId, p.discordUserId, w.roles.silver)).toHaveLength(1);
    expect(roleRequests(w, PUT_ROLE, w.guildId, p.discordUserId, w.roles.silver)).toHaveLength(3);

    // SIGKILL of the holder: the last instance answers within 30 s.
    const killedName = (await holders(w)).get(0)![0]!;
    const killed = w.instances.find((i) => i.name === killedName)!;
    w.balancer.targets = w.balancer.targets.filter((t) => t !== killed.url);
    const killAt = Date.now();
    killed.child.kill('SIGKILL');
    const survivor = w.instances.find((i) => i !== holder && i !== killed)!;
    const takeoverMs = await firstAnswerAfter(w, killAt, p.discordUserId, 60_000, [survivor]);
    console.log(`SIGKILL of the gateway holder → a command answered by another instance: ${takeoverMs} ms`);
    expect(takeoverMs).toBeLessThan(30_000);
    expect(await survivor.shards()).toEqual([0]);
  },
  240_000,
);

pgTest(
  'two shards over two instances: each holds one, and each guild’s commands and member events are handled only by the holder of its shard',
  async () => {
    const w = (world = await createInstancesWorld({
      gateway: { shards: 2, maxConcurrency: 1 },
      guildShard: { id: 0, count: 2 },
    }));
    const second = w.discord.createGuild({ name: 'Second Club', ownerId: w.ownerId, shard: { id: 1, count: 2 } }).guildId;
    expect([shardIdForGuild(w.guildId, 2), shardIdForGuild(second, 2)]).toEqual([0, 1]);
    const a = await w.running(w.start('a'));
    // Alone, the first instance holds both shards (IDENTIFYs 5 s apart: one rate-limit key).
    await eventually('a holds both shards', async () => (await a.shards()).length === 2, 60_000);
    const b = await w.running(w.start('b'));
    // Once the instance list settles, a hands one shard to b.
    await eventually('one shard each', async () => (await a.shards()).length === 1 && (await b.shards()).length === 1, 90_000);
    await eventually('two sessions', () => connectedSessions(w).length === 2, 30_000);
    const holderOf = async (shard: number): Promise<InstanceProcess> => ((await a.shards()).includes(shard) ? a : b);
    const identifies = w.discord.gatewayIdentifies();
    expect(identifies.filter((i) => i.outcome === 'rate-limited')).toEqual([]);

    for (const [guildId, shard] of [
      [w.guildId, 0],
      [second, 1],
    ] as const) {
      const holder = await holderOf(shard);
      const other = holder === a ? b : a;
      const userId = w.discord.addMember(guildId, { username: `member${shard}` }).userId;
      await holder.logged((l) => l.msg === 'member joined' && l.guildId === guildId, 30_000);
      const { interactionId } = w.discord.injectCommand({ guildId, userId, name: 'status' });
      await w.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 15_000 });
      await holder.logged((l) => l.msg === 'interaction received' && l.guildId === guildId, 10_000);
      await sleep(1000);
      expect(other.lines.filter((l) => (l.msg === 'member joined' || l.msg === 'interaction received') && l.guildId === guildId)).toEqual(
        [],
      );
      expect(w.discord.interactionResponses(interactionId).filter((r) => r.kind === 'callback')).toHaveLength(1);
    }
  },
  240_000,
);

pgTest(
  'HTTP interactions behind a balancer: any instance answers, each command once, none over the gateway; /link right after start-up gets a link',
  async () => {
    const w = (world = await createInstancesWorld({ env: { DISCORD_PUBLIC_KEY: '' } }));
    w.env.DISCORD_PUBLIC_KEY = w.discord.publicKey;
    const a = await w.running(w.start('a'));
    await w.discord.setInteractionsEndpoint(`${w.balancer.url}/interactions`);
    const b = w.start('b');
    // Within a second of b's readiness, /link through b (the balancer sends this one to b) gets a link.
    const user = w.discord.addMember(w.guildId, { username: 'early' }).userId;
    await b.logged('Tierlink is running', 90_000);
    const readyAt = Date.now();
    w.balancer.targets = [b.url];
    const early = w.discord.injectCommand({ guildId: w.guildId, userId: user, name: 'link' });
    const sentAfterMs = Date.now() - readyAt;
    const linkReply = await w.discord.waitForInteractionResponse(early.interactionId, { final: true, timeoutMs: 15_000 });
    console.log(`/link sent ${sentAfterMs} ms after readiness; its link answered ${Date.now() - readyAt} ms after readiness`);
    expect(JSON.stringify(linkReply.data)).toContain(`${w.balancer.url}/link/`);
    await eventually('the 202 read', () => w.discord.interactionDelivery(early.interactionId).state === 'answered', 10_000);
    expect(w.discord.interactionDelivery(early.interactionId)).toMatchObject({ mode: 'http', httpStatus: 202 });
    await b.logged((l) => l.msg === 'interaction received' && l.guildId === w.guildId, 10_000);
    w.balancer.targets = [a.url, b.url];

    // One instance holds the shard; both answer commands.
    await eventually('one holder', async () => (await a.shards()).length + (await b.shards()).length === 1);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const name = i % 3 === 0 ? 'tiers' : i % 3 === 1 ? 'status' : 'link';
      const { interactionId } = await command(w, name === 'tiers' ? w.ownerId : user, name, [], ADMIN);
      await eventually('the 202 read', () => w.discord.interactionDelivery(interactionId).state === 'answered', 10_000);
      expect(w.discord.interactionDelivery(interactionId)).toMatchObject({ mode: 'http', httpStatus: 202 });
      ids.push(interactionId);
    }
    // Autocomplete too.
    const auto = w.discord.injectCommand({
      guildId: w.guildId,
      userId: w.ownerId,
      name: 'map',
      options: [{ name: 'tier', type: 3, value: 'Go' }],
      focused: 'tier',
      memberPermissions: ADMIN,
    });
    const choices = await w.discord.waitForInteractionResponse(auto.interactionId, { timeoutMs: 15_000 });
    expect(choices.data?.choices).toEqual([expect.objectContaining({ name: expect.stringContaining('Gold') })]);
    for (const id of ids) await answeredOnce(w, id);
    const handledBy = (i: InstanceProcess) => i.lines.filter((l) => l.msg === 'interaction received').length;
    expect(handledBy(a)).toBeGreaterThan(0);
    expect(handledBy(b)).toBeGreaterThan(1);
  },
  240_000,
);
