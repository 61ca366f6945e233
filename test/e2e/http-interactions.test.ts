import net from 'node:net';
import { createTierlink } from '../../src/main';
import { createLogger } from '../../src/edges/outbound/observability/logger';
import { type E2E, MemoryLog, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, boolOption, pressButton, roleOption, runCommand, tierOption } from '../support/e2e-admin';
import { createTestDatabase } from '../support/test-database';

/**
 * Commands delivered by HTTP (`POST /interactions`, DISCORD_PUBLIC_KEY) go through the same router
 * and commands as gateway ones (src/edges/inbound/bot/payload-interactions.ts): the same answers, once,
 * through the callback and webhook routes, and none over the gateway while the URL is set.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true, beforeStart: ({ discord }) => ({ DISCORD_PUBLIC_KEY: discord.publicKey }) });
  // Discord checks the URL on save: a signed PING answered {"type":1}, a bad signature 401.
  await e.discord.setInteractionsEndpoint(`${e.url}/interactions`);
}, 60_000);
afterAll(() => e?.stop());

const delivery = (interactionId: string) => e.discord.interactionDelivery(interactionId);

test('/link by HTTP: a link button, answered once, delivered only by HTTP; the link works', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'httpada' });
  const patron = activePatron(e, 'Http Ada', [e.tiers.gold]);
  const page = await e.link(member.userId, patron.id);
  expect(page.status).toBe(200);
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: true, timeoutMs: 10_000 });
  const { interactionId } = e.discord.injectCommand({ guildId: e.guildId, userId: member.userId, name: 'status' });
  const reply = await e.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  expect(String(reply.data?.content)).toContain('**Linked** to Patreon');
  expect(delivery(interactionId)).toMatchObject({ mode: 'http' });
  const callbacks = e.discord.interactionResponses(interactionId).filter((r) => r.kind === 'callback');
  expect(callbacks).toHaveLength(1);
  expect(e.discord.requests({ route: 'POST /interactions/:i/:t/callback' }).filter((r) => r.status >= 400)).toEqual([]);
});

test('admin commands with options, resolved roles and autocomplete work by HTTP as by the gateway', async () => {
  const choices = await e.autocomplete(e.ownerId, 'map', [tierOption('GO')], 'tier', MANAGE_ROLES);
  expect(choices).toEqual([{ name: 'Gold — $10 a month', value: `${e.patreon.campaignId}:${e.tiers.gold}` }]);
  const mapped = await runCommand(e, {
    userId: e.ownerId,
    name: 'map',
    options: [tierOption(`${e.patreon.campaignId}:${e.tiers.gold}`), roleOption('role', e.roles.staff)],
    memberPermissions: MANAGE_ROLES,
  }).until(/Updated: /);
  expect(mapped.content).toMatch(/^\*\*Gold\*\* now grants \*\*Staff\*\*\. Updated: /);
  const tiers = await e.command(e.ownerId, 'tiers', [], MANAGE_ROLES);
  expect(tiers.content).toContain(`<@&${e.roles.staff}> (from /map)`);
  // The permission is checked at run time, from the member's roles, whatever the delivery.
  const plain = e.discord.addMember(e.guildId, { username: 'plain' }).userId;
  const refused = await runCommand(e, { userId: plain, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply();
  expect(refused.content).toMatch(/^You need the \*\*Manage Roles\*\* permission to use \/tiers\./);
  expect(await e.autocomplete(plain, 'map', [tierOption('GO')], 'tier', MANAGE_ROLES)).toEqual([]);
});

test('a button by HTTP: /settings strict:true asks, the press confirms', async () => {
  const asked = runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [boolOption('strict', true)],
    memberPermissions: MANAGE_ROLES,
  });
  const preview = await asked.reply();
  expect(preview.buttons.map((b) => b.label)).toEqual(['Turn strict mode on']);
  const press = await pressButton(e, asked, 'Turn strict mode on');
  expect((await press.until(/Updated|failed/)).content).toMatch(/^\*\*Strict mode is on\.\*\*/);
  expect(e.discord.interactionDelivery(press.interactionId)).toMatchObject({ mode: 'http' });
  await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [boolOption('strict', false)],
    memberPermissions: MANAGE_ROLES,
  }).until(/Updated|saved/);
});

test('a command in a server with no campaign is answered by HTTP too', async () => {
  const other = e.discord.createGuild({ name: 'Elsewhere', ownerId: e.ownerId });
  const member = e.discord.addMember(other.guildId, { username: 'stranger' });
  const { interactionId } = e.discord.injectCommand({ guildId: other.guildId, userId: member.userId, name: 'link' });
  const reply = await e.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  expect(String(reply.data?.content)).toContain('This server is not connected to a Patreon campaign yet');
});

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('until the configured campaign is bound, a command is answered "Tierlink is starting", then served', async () => {
  const db = await createTestDatabase();
  const port = await freePort();
  // Binding reads the bot's guilds over REST; Discord answers that read with a 3-second rate limit.
  e.discord.injectFault({ method: 'GET', route: '/users/@me/guilds', status: 429, retryAfterSeconds: 3 });
  const tierlink = await createTierlink({
    config: {
      ...e.config,
      port,
      discord: { ...e.config.discord, guildId: undefined },
      patreon: {
        ...e.config.patreon,
        creatorAccessToken: e.patreon.creatorTokens.accessToken,
        creatorRefreshToken: e.patreon.creatorTokens.refreshToken,
      },
    },
    logger: createLogger({ level: 'warn', destination: new MemoryLog() }),
    database: db.database,
    clock: e.clock,
    discordWaitGuildTimeoutMs: 500,
  });
  const started = tierlink.start();
  try {
    const url = `http://localhost:${port}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${url}/healthz`).catch(() => null))?.status === 200) break;
      if (i > 200) throw new Error('the second instance never listened');
      await new Promise((r) => setTimeout(r, 25));
    }
    await e.discord.setInteractionsEndpoint(`${url}/interactions`);
    const early = await e.command(e.ownerId, 'link');
    expect(early.content).toBe('Tierlink is starting, try again in a few seconds.');
    expect(early.ephemeral).toBe(true);
    await started;
    const served = await e.command(e.ownerId, 'link');
    expect(served.urls[0]).toMatch(new RegExp(`^${url}/link/`));
  } finally {
    await e.discord.setInteractionsEndpoint(`${e.url}/interactions`);
    await started.catch(() => undefined);
    await tierlink.stop();
    await db.close();
  }
});
