import { REST } from '@discordjs/rest';
import { Events, GatewayIntentBits, MessageFlags, Routes, ShardClientUtil } from 'discord.js';
import type { Client, GuildMember } from 'discord.js';
import { CloseCode, Intent, createDiscordSandbox, shardIdForGuild } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { readyClient } from './clients';
import { RawGateway } from './raw-gateway';

const INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers];

function identify(sandbox: DiscordSandbox, shard?: [number, number]): RawGateway {
  const gw = new RawGateway(`${sandbox.gatewayUrl}/?v=10&encoding=json`);
  void gw
    .frame((f) => f.op === 10)
    .then(() => gw.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds, properties: {}, shard } }));
  return gw;
}

describe('shard arithmetic', () => {
  it('agrees with discord.js on which shard a guild belongs to, in BigInt', () => {
    // The example of docs/discord-api-notes.md §4, where Number arithmetic gives 89.
    expect(shardIdForGuild('1185617944248590507', 100)).toBe(25);
    for (const id of ['1185617944248590507', '81384788765712384', '613425648685547541', '1420070400000000000']) {
      for (const count of [1, 2, 3, 7, 100])
        expect([id, count, shardIdForGuild(id, count)]).toEqual([id, count, ShardClientUtil.shardIdForGuildId(id, count)]);
    }
  });

  it('mints guild ids on a chosen shard', async () => {
    const sandbox = await createDiscordSandbox();
    try {
      for (const [id, count] of [
        [0, 2],
        [1, 2],
        [4, 5],
        [2, 16],
      ] as const) {
        const { guildId } = sandbox.createGuild({ shard: { id, count } });
        expect(shardIdForGuild(guildId, count)).toBe(id);
        expect(guildId).toMatch(/^\d{17,19}$/);
      }
      // Ids minted afterwards are still unique and increasing.
      const after = sandbox.createGuild().guildId;
      expect(BigInt(after) > BigInt(sandbox.guilds().at(-2)?.id ?? '0')).toBe(true);
    } finally {
      await sandbox.close();
    }
  });
});

describe('sharded gateway', () => {
  let sandbox: DiscordSandbox;
  const clients: Client[] = [];
  const raws: RawGateway[] = [];

  beforeEach(async () => {
    sandbox = await createDiscordSandbox({ gateway: { shards: 2, maxConcurrency: 2 } });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) await client.destroy();
    for (const raw of raws.splice(0)) raw.close();
    await sandbox.close();
  });

  const client = async (shard: number, count: number): Promise<Client> => {
    const c = await readyClient(sandbox, INTENTS, { shards: [shard], shardCount: count });
    clients.push(c);
    return c;
  };
  const raw = (shard?: [number, number]): RawGateway => {
    const gw = identify(sandbox, shard);
    raws.push(gw);
    return gw;
  };

  it('answers GET /gateway/bot with the shards and the session start limit, counted down by each IDENTIFY', async () => {
    const rest = new REST({ api: sandbox.apiBaseUrl }).setToken(sandbox.botToken);
    const before = (await rest.get(Routes.gatewayBot())) as Record<string, unknown>;
    expect(before).toEqual({
      url: sandbox.gatewayUrl,
      shards: 2,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 2 },
    });
    await client(0, 2);
    const after = (await rest.get(Routes.gatewayBot())) as { session_start_limit: { remaining: number } };
    expect(after.session_start_limit.remaining).toBe(999);
  });

  it("gives each shard's session only its guilds, their member events and their interactions", async () => {
    const a = sandbox.createGuild({ name: 'On shard 0', shard: { id: 0, count: 2 } }).guildId;
    const b = sandbox.createGuild({ name: 'On shard 1', shard: { id: 1, count: 2 } }).guildId;
    const zero = await client(0, 2);
    const one = await client(1, 2);
    expect([...zero.guilds.cache.keys()]).toEqual([a]);
    expect([...one.guilds.cache.keys()]).toEqual([b]);
    expect(sandbox.gatewaySessions().map((s) => [s.shard, s.guildIds, s.connected])).toEqual([
      [[0, 2], [a], true],
      [[1, 2], [b], true],
    ]);

    const joins: Array<[number, string]> = [];
    for (const [n, c] of [zero, one].entries()) c.on(Events.GuildMemberAdd, (m: GuildMember) => joins.push([n, m.guild.id]));
    const heard = new Promise<void>((resolve) => one.once(Events.GuildMemberAdd, () => resolve()));
    sandbox.addMember(b, { username: 'bob' });
    await heard;
    const heardA = new Promise<void>((resolve) => zero.once(Events.GuildMemberAdd, () => resolve()));
    sandbox.addMember(a, { username: 'alice' });
    await heardA;
    expect(joins).toEqual([
      [1, b],
      [0, a],
    ]);

    const answered: number[] = [];
    for (const [n, c] of [zero, one].entries()) {
      c.on(Events.InteractionCreate, (i) => {
        if (!i.isChatInputCommand()) return;
        answered.push(n);
        void i.reply({ content: `shard ${n}`, flags: MessageFlags.Ephemeral });
      });
    }
    const bob = sandbox.members(b).find((m) => m.username === 'bob')?.userId ?? '';
    const { interactionId } = sandbox.injectCommand({ guildId: b, userId: bob, name: 'status' });
    expect(await sandbox.waitForInteractionResponse(interactionId)).toMatchObject({ data: { content: 'shard 1' } });
    expect(answered).toEqual([1]);
  });

  it('sends the events of a shard to every session of it, so double handling shows as 40060', async () => {
    sandbox.setGatewayOptions({ shards: 1, identifyIntervalMs: 0 });
    const { guildId } = sandbox.createGuild();
    const alice = sandbox.addMember(guildId, { username: 'alice' }).userId;
    const first = await client(0, 1);
    const second = await client(0, 1);
    const outcomes = [first, second].map(
      (c) =>
        new Promise<string>((resolve) => {
          c.once(Events.InteractionCreate, (i) => {
            if (i.isChatInputCommand())
              i.reply({ content: 'twice' }).then(
                () => resolve('answered'),
                (e: { code?: number }) => resolve(String(e.code)),
              );
          });
        }),
    );
    sandbox.injectCommand({ guildId, userId: alice, name: 'status' });
    expect((await Promise.all(outcomes)).sort()).toEqual(['40060', 'answered']);
    expect(sandbox.gatewaySessions()).toHaveLength(2);
  });

  it('paces IDENTIFY per max_concurrency bucket with op 9, and refuses bad shards with 4010', async () => {
    sandbox.setGatewayOptions({ maxConcurrency: 1, identifyIntervalMs: 60_000 });
    const first = raw([0, 2]);
    await first.frame((f) => f.t === 'READY');
    const tooSoon = raw([1, 2]);
    expect(await tooSoon.frame((f) => f.op === 9)).toEqual({ op: 9, d: false });
    sandbox.setGatewayOptions({ maxConcurrency: 2 });
    // Bucket 1 % 2 = 1 is free; bucket 0 is not.
    const other = raw([1, 2]);
    expect((await other.frame((f) => f.t === 'READY')).d).toMatchObject({ shard: [1, 2] });
    const again = raw([0, 2]);
    await again.frame((f) => f.op === 9);
    expect(sandbox.gatewayIdentifies().map((r) => [r.shard, r.outcome])).toEqual([
      [[0, 2], 'ready'],
      [[1, 2], 'rate-limited'],
      [[1, 2], 'ready'],
      [[0, 2], 'rate-limited'],
    ]);
    for (const shard of [[2, 2], [0, 0], [-1, 1], [0]] as Array<[number, number]>)
      expect(await raw(shard).closed).toBe(CloseCode.InvalidShard);
  });

  it('closes with 4011 when a session would hold more guilds than a shard may', async () => {
    sandbox.setGatewayOptions({ maxGuildsPerShard: 1 });
    sandbox.createGuild({ shard: { id: 0, count: 2 } });
    sandbox.createGuild({ shard: { id: 1, count: 2 } });
    expect(await raw([0, 1]).closed).toBe(CloseCode.ShardingRequired);
    expect(sandbox.gatewayCloses().map((c) => c.code)).toEqual([4011]);
    const zero = await client(0, 2);
    expect(zero.guilds.cache.size).toBe(1);
  });

  it('offers the sharding settings and sessions in the HTTP control API', async () => {
    const base = `${sandbox.baseUrl}/__sandbox`;
    expect((await fetch(`${base}/gateway`, { method: 'PUT', body: JSON.stringify({ shards: 3, maxConcurrency: 3 }) })).status).toBe(204);
    const created = await fetch(`${base}/guilds`, { method: 'POST', body: JSON.stringify({ shard: [2, 3] }) });
    const { guildId } = (await created.json()) as { guildId: string };
    expect(shardIdForGuild(guildId, 3)).toBe(2);
    await client(2, 3);
    const sessions = (await (await fetch(`${base}/gateway/sessions`)).json()) as Array<{ shard: number[]; guildIds: string[] }>;
    expect(sessions.map((s) => [s.shard, s.guildIds])).toEqual([[[2, 3], [guildId]]]);
    expect((await fetch(`${base}/gateway`, { method: 'PUT', body: JSON.stringify({ shards: 0 }) })).status).toBe(400);
  });
});
