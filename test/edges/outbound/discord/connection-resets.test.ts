import net from 'node:net';
import { Routes } from 'discord.js';
import { createManualClock } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createRest } from '../../../../src/edges/outbound/discord/create-rest';
import { createGuildDirectory } from '../../../../src/edges/outbound/discord/guild-directory';
import { createRoleWriter } from '../../../../src/edges/outbound/discord/role-writer';

/**
 * A connection lost before Discord answered, for real: a TCP front before Discord's stand-in that
 * takes the next connection's request and then resets it (RST) or closes it (FIN) unanswered, as
 * a kept-alive socket closed by the other end a moment before its reuse does. Every later
 * connection goes through to the stand-in.
 */
type Loss = 'reset' | 'close';

let sandbox: DiscordSandbox;
let front: { port: number; losses: Loss[]; close(): Promise<void> } | undefined;

beforeAll(async () => {
  sandbox = await createDiscordSandbox();
});

afterAll(() => sandbox.close());

afterEach(async () => {
  await front?.close();
  front = undefined;
});

/** A front of its own for each test: its first connections are new ones, never a socket kept alive from another test. */
async function startFront(losses: Loss[]): Promise<{ port: number; losses: Loss[]; close(): Promise<void> }> {
  const target = new URL(sandbox.apiBaseUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const loss = losses.shift();
    if (loss) {
      client.once('data', () => (loss === 'reset' ? client.resetAndDestroy() : client.destroy()));
      client.on('error', () => undefined);
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    losses,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function build(losses: Loss[]) {
  front = await startFront(losses);
  const apiBaseUrl = sandbox.apiBaseUrl.replace(/:\d+\//, `:${front.port}/`);
  const handle = createRest({ apiBaseUrl, token: sandbox.botToken });
  const writer = createRoleWriter({
    rest: handle.rest,
    directory: createGuildDirectory({ rest: handle.rest }),
    clock: createManualClock(),
  });
  const { guildId } = sandbox.createGuild();
  const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
  return { handle, writer, guildId, gold };
}

test.each<Loss>(['reset', 'close'])(
  'a role request whose connection is lost unanswered (%s) is sent again, and the role is given once',
  async (loss) => {
    const { writer, guildId, gold } = await build([]);
    const { userId } = sandbox.addMember(guildId);
    sandbox.resetRequests();
    front!.losses.push(loss);
    await expect(writer.addRole(guildId, userId, gold, 'sync')).resolves.toEqual({ ok: true, value: undefined });
    expect(front!.losses).toEqual([]);
    expect(sandbox.requests({ route: 'PUT /guilds/:g/members/:u/roles/:r' }).map((r) => r.status)).toEqual([204]);
    expect(sandbox.memberRoles(guildId, userId)).toEqual([gold]);
  },
);

test('a read whose connection is reset is sent again', async () => {
  const { handle, guildId } = await build(['reset']);
  const guild = (await handle.rest.get(Routes.guild(guildId))) as { id: string };
  expect(guild.id).toBe(guildId);
  expect(front!.losses).toEqual([]);
});

test('a new role whose request closed unanswered is not asked for again: it might have been made', async () => {
  const { handle, guildId } = await build([]);
  const before = sandbox.requests().length;
  front!.losses.push('close');
  await expect(handle.rest.post(Routes.guildRoles(guildId), { body: { name: 'Made twice?' } })).rejects.toMatchObject({
    code: 'UND_ERR_SOCKET',
  });
  expect(front!.losses).toEqual([]);
  expect(sandbox.requests().slice(before)).toEqual([]);
});
