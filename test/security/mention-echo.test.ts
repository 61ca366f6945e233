import { PermissionFlagsBits } from 'discord.js';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, roleOption, runCommand, tierOption } from '../support/e2e-admin';

/**
 * Attack: a tier's title is the creator's text on Patreon (or whoever can edit the campaign), and
 * replies echo it. A title such as `@everyone Gold <@&admin role>` made `/map` ping the whole
 * server from the bot. Refusal: every message the bot's clients send pings nobody unless it says
 * so, whatever it quotes, on the gateway and by HTTP alike.
 */

let e: E2E;
let admins: string;
let hostile: string;
const HOSTILE = (roleId: string) => `@everyone Gold <@&${roleId}> @here`;

beforeAll(async () => {
  e = await startE2E({
    connected: true,
    beforeStart: ({ discord, patreon, guildId }) => {
      admins = discord.createRole(guildId, { name: 'Admins', permissions: PermissionFlagsBits.Administrator, position: 1 }).id;
      hostile = patreon.createTier(patreon.campaignId, { title: HOSTILE(admins), amountCents: 2000, chatRoleIds: [] }).id;
      return { DISCORD_PUBLIC_KEY: discord.publicKey };
    },
  });
}, 60_000);
afterAll(() => e?.stop());

/** Every message of the interaction pings nobody: `allowed_mentions` with nothing to parse, on each response that has content. */
function pingsNobody(interactionId: string): void {
  const bodies = e.discord
    .interactionResponses(interactionId)
    .map((r) => r.data)
    .filter((d): d is Record<string, unknown> => d !== null && typeof d.content === 'string');
  expect(bodies.length).toBeGreaterThan(0);
  for (const body of bodies) expect(body.allowed_mentions).toMatchObject({ parse: [] });
}

test('/map and /tiers quote the hostile title and ping nobody (gateway)', async () => {
  await runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply();
  const map = runCommand(e, {
    userId: e.ownerId,
    name: 'map',
    options: [tierOption(`${e.patreon.campaignId}:${hostile}`), roleOption('role', e.roles.staff)],
    memberPermissions: MANAGE_ROLES,
  });
  const mapped = await map.until(/Updated|failed|already/);
  expect(mapped.content).toContain('@everyone Gold');
  pingsNobody(map.interactionId);
  const tiers = runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES });
  expect((await tiers.reply()).content).toContain('@everyone Gold');
  pingsNobody(tiers.interactionId);
});

test('the same by HTTP interactions', async () => {
  await e.discord.setInteractionsEndpoint(`${e.url}/interactions`);
  try {
    const tiers = runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES });
    expect((await tiers.reply()).content).toContain('@everyone Gold');
    expect(e.discord.interactionDelivery(tiers.interactionId)).toMatchObject({ mode: 'http' });
    pingsNobody(tiers.interactionId);
  } finally {
    await e.discord.setInteractionsEndpoint(null);
  }
});
