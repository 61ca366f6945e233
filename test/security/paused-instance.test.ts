import { onPostgres } from '../support/test-database';
import { type InstancesWorld, createInstancesWorld, eventually } from '../support/instances';

/**
 * Attack (fault): the instance that holds the gateway shard is paused (SIGSTOP: a frozen machine, a
 * long pause) past its lease; another instance takes the shard and serves it; then the first one
 * resumes with the events it missed still in its socket. Refusal (docs/outages-and-fencing.md): it acts
 * on none of them, because each handler checks the shard's lease at the generation it took it with:
 * the rejoin restored once, the command answered once. Two processes need PostgreSQL.
 */
const pgTest = onPostgres() ? test : test.skip;
const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';
const CALLBACK = 'POST /interactions/:i/:t/callback';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let world: InstancesWorld | undefined;
afterEach(async () => {
  for (const i of world?.instances ?? []) i.child.kill('SIGCONT');
  await world?.close();
  world = undefined;
});

pgTest(
  'a paused holder that resumes after its shard moved does not restore a rejoin again nor answer a command again',
  async () => {
    const w = (world = await createInstancesWorld());
    const a = await w.running(w.start('a'));
    const b = await w.running(w.start('b'));
    await eventually('one instance holds shard 0', async () => (await a.shards()).length + (await b.shards()).length === 1);
    const holder = (await a.shards()).includes(0) ? a : b;
    const other = holder === a ? b : a;

    const userId = w.discord.addMember(w.guildId, { username: 'pat' }).userId;
    const patreonUser = w.patreon.createUser({ fullName: 'Pat', discordUserId: userId });
    w.patreon.setMembership(patreonUser.id, w.patreon.campaignId, {
      patronStatus: 'active_patron',
      tierIds: [w.tiers.gold],
      lastChargeDate: new Date(),
      lastChargeStatus: 'Paid',
    });
    await w.discord.waitForMemberRole(w.guildId, userId, w.roles.gold, { present: true, timeoutMs: 30_000 });

    holder.child.kill('SIGSTOP');
    await eventually('the other instance took shard 0', async () => (await other.shards()).includes(0), 60_000, 500);

    // While the old holder is frozen, its socket still receives the shard's events (Discord keeps
    // an unanswered session a while): a rejoin and a command.
    const hold = w.discord.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'before', times: 5 });
    w.discord.removeMember(w.guildId, userId);
    w.discord.addMember(w.guildId, { userId, username: 'pat' });
    await hold.waitForHeld(1, 30_000);
    const asker = w.discord.addMember(w.guildId, { username: 'asker' }).userId;
    const { interactionId } = w.discord.injectCommand({ guildId: w.guildId, userId: asker, name: 'status' });
    await w.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 15_000 });

    holder.child.kill('SIGCONT');
    await holder.logged((l) => l.msg === 'gateway shard given up' && l.why === 'lease lost', 30_000);
    await sleep(3000);
    // Only the new holder's PUT: the resumed instance sent none.
    expect(hold.waiting()).toBe(1);
    hold.release();
    await w.discord.waitForMemberRole(w.guildId, userId, w.roles.gold, { present: true, timeoutMs: 30_000 });
    expect(w.discord.interactionResponses(interactionId).filter((r) => r.kind === 'callback')).toHaveLength(1);
    expect(w.discord.requests({ route: CALLBACK }).filter((r) => r.status >= 400)).toEqual([]);
    expect(holder.lines.some((l) => /no longer holds|another instance took/.test(String(l.msg)))).toBe(true);
  },
  240_000,
);
