import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { type Database, openDatabase } from '../../src/edges/outbound/store/database';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { createRepositories } from '../../src/edges/outbound/store/repositories';
import { createSecretBox } from '../../src/edges/outbound/store/secret-box';
import { silentLogger } from '../../src/shared/logger';
import { linkPatron, sandboxCommand } from '../support/e2e';
import { MANAGE_ROLES, intOption } from '../support/e2e-admin';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * Moving an install (docs/operating.md, "Move to PostgreSQL"), with real processes: Tierlink runs
 * on the embedded database with a generated key; `npm run backup` copies it while it runs; `npm run
 * restore` loads it into PostgreSQL (on the PostgreSQL pass; into a new embedded data folder
 * otherwise), first refusing the wrong key and naming the right one; Tierlink started there has
 * every link, setting, grant and credential, removes a cancelled patron's role, and a second
 * restore into the same database is refused.
 */

const cli = (name: string) => path.join(packageRoot(), `dist/src/cli/${name}.js`);

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let work: string;
let scratch: ScratchPostgres | null = null;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-move-'));
  if (onPostgres()) scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_move');
});

afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await discord.close();
  await patreon.close();
  await scratch?.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

function run(script: string, args: string[], env: Record<string, string>, cwd: string) {
  return spawnSync(process.execPath, [cli(script), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 180_000,
  });
}

/** What the move must keep, read through the repositories (links, the ledger, the settings, the creator's sealed tokens). */
async function state(database: Database, secretKey: string, guildId: string, creatorUserId: string) {
  const repos = createRepositories(database.db, createSecretBox(secretKey));
  const discordIds: string[] = [];
  for await (const page of repos.links.linkedDiscordUsers('patreon')) discordIds.push(...page);
  const links = (await repos.links.byDiscordUsers('patreon', discordIds)).map((l) => `${l.discordUserId}→${l.externalId}`).sort();
  const ledger = [...(await repos.ledger.forGuild(guildId))]
    .flatMap(([user, entries]) => entries.map((e) => `${user}:${e.roleId}:${e.tierId}`))
    .sort();
  const settings = await repos.guilds.settings(guildId);
  const tokens = await repos.credentials.load(creatorUserId);
  const comps = (await repos.comps.inForce(guildId, new Date())).map(
    (c) => `${c.discordUserId}:${c.tierId}:${c.until.toISOString()}:${c.reason}`,
  );
  return { links, ledger, settings, tokens, comps };
}

test(`a running embedded install, backed up and restored into ${onPostgres() ? 'PostgreSQL' : 'a new embedded data folder'}, starts there with every link, setting, comp and grant; a cancel removes the role; a second restore is refused`, async () => {
  const ownerId = '100000000000000099';
  const { guildId } = discord.createGuild({ name: 'Moving Club', ownerId });
  const gold = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
  const silver = discord.createRole(guildId, { name: 'Silver', position: 1 }).id;
  const tiers = {
    gold: patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [gold] }).id,
    silver: patreon.createTier(patreon.campaignId, { title: 'Silver', amountCents: 500, chatRoleIds: [silver] }).id,
  };
  const dataDir = path.join(work, 'embedded');
  fs.mkdirSync(dataDir);
  const port = await freePort();
  // The embedded install of a creator who followed the quick start: no SECRET_KEY, the key is generated into DATA_DIR.
  const embeddedEnv = {
    ...standInEnvironment(patreon, discord, guildId),
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
    PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
  };
  const world = { discord, patreon, guildId };

  const first = startServiceProcess(embeddedEnv, dataDir);
  children.push(first);
  const url = await first.running();
  patreon.registerRedirectUri(`${url}/oauth/callback`);
  discord.registerRedirectUri(`${url}/discord/callback`);
  await first.logged('registered the campaign webhook');

  const patrons = [
    { name: 'Ada', tier: tiers.gold, role: gold },
    { name: 'Ben', tier: tiers.silver, role: silver },
    { name: 'Cy', tier: tiers.gold, role: gold },
  ].map((p) => {
    const member = discord.addMember(guildId, { username: p.name.toLowerCase() }).userId;
    const user = patreon.createUser({ fullName: p.name });
    patreon.setMembership(
      user.id,
      patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [p.tier], lastChargeDate: new Date(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    return { ...p, member, patreonId: user.id };
  });
  for (const p of patrons) {
    const page = await linkPatron(world, p.member, p.patreonId);
    expect(page.status).toBe(200);
    await discord.waitForMemberRole(guildId, p.member, p.role, { present: true, timeoutMs: 30_000 });
  }
  const settings = await sandboxCommand(world, ownerId, 'settings', [intOption('grace_days', 3)], MANAGE_ROLES);
  expect(settings.content).toMatch(/3 days/);
  // A comp: Dee, no patron, has Silver until the end of next year.
  const dee = discord.addMember(guildId, { username: 'dee' }).userId;
  const until = `${new Date().getUTCFullYear() + 1}-12-31`;
  const { interactionId } = discord.injectCommand({
    guildId,
    userId: ownerId,
    name: 'comp',
    subcommand: 'grant',
    options: [
      { name: 'member', type: 6, value: dee },
      { name: 'tier', type: 3, value: 'Silver' },
      { name: 'until', type: 3, value: until },
      { name: 'reason', type: 3, value: 'moderator' },
    ],
    memberPermissions: MANAGE_ROLES,
  });
  await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  await discord.waitForMemberRole(guildId, dee, silver, { present: true, timeoutMs: 30_000 });

  // The backup, while the service runs: it copies its own database between two statements.
  const file = path.join(work, 'tierlink.backup.gz');
  const backup = run('backup', ['--out', file], embeddedEnv, dataDir);
  expect(backup.stderr).toBe('');
  expect(backup.status).toBe(0);
  expect(backup.stdout).toContain(`Backup written: ${file}`);
  const keyFile = path.join(dataDir, 'secret.key');
  expect(backup.stdout).toContain(`sealed with the key`);
  expect(backup.stdout).toContain(keyFile);
  await first.logged('backup: the embedded database was copied for a backup');
  expect(fs.statSync(file).mode & 0o077).toBe(0);
  expect(fs.readdirSync(path.join(dataDir, 'snapshots'))).toEqual([]);

  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  const generatedKey = fs.readFileSync(keyFile, 'utf8').trim();
  const embedded = await openDatabase({ engine: 'pglite', dataDir, logger: silentLogger });
  const before = await state(embedded, generatedKey, guildId, patreon.creatorUserId);
  await embedded.close();
  expect(before.links).toHaveLength(3);
  expect(before.ledger).toHaveLength(4);
  expect(before.comps).toHaveLength(1);
  expect(before.settings.graceDays).toBe(3);
  expect(before.tokens).not.toBeNull();

  // The new home: PostgreSQL (or a new data folder), without the creator tokens in the environment.
  const newDir = path.join(work, 'new-home');
  fs.mkdirSync(newDir);
  const target: Record<string, string> = scratch ? { DATABASE_URL: scratch.url, DATA_DIR: newDir } : { DATA_DIR: newDir };
  const { PATREON_CREATOR_ACCESS_TOKEN: _a, PATREON_CREATOR_REFRESH_TOKEN: _r, ...withoutTokens } = embeddedEnv;
  const newEnv = { ...withoutTokens, ...target };

  const wrongKey = run('restore', [file], { ...newEnv, SECRET_KEY: 'a-new-key-that-is-long-enough-for-tierlink-0000' }, newDir);
  expect(wrongKey.status).toBe(2);
  expect(wrongKey.stdout).toBe('');
  const refusal = JSON.parse(wrongKey.stderr.trim()) as { msg: string; level: number };
  expect(refusal.level).toBe(60);
  expect(refusal.msg).toContain(`SECRET_KEY="$(cat ${keyFile})"`);
  expect(wrongKey.stderr.trim().split('\n')).toHaveLength(1);

  const restore = run('restore', [file], { ...newEnv, SECRET_KEY: generatedKey }, newDir);
  expect(restore.stderr).toBe('');
  expect(restore.status).toBe(0);
  expect(restore.stdout).toMatch(/^Restored tierlink\.backup\.gz into /);

  const second = startServiceProcess({ ...newEnv, SECRET_KEY: generatedKey }, newDir);
  children.push(second);
  await second.running();
  if (scratch) {
    const moved = await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 1 });
    expect(await state(moved, generatedKey, guildId, patreon.creatorUserId)).toEqual(before);
    await moved.close();
    // A second restore into the same database is refused, while Tierlink runs on it.
    const again = run('restore', [file], { ...newEnv, SECRET_KEY: generatedKey }, newDir);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('The database is not empty');
  }
  for (const p of patrons) expect(discord.memberRoles(guildId, p.member)).toContain(p.role);
  expect(discord.memberRoles(guildId, dee)).toContain(silver);

  // Ada cancels: the webhook reaches the moved service, which reads her with the moved creator tokens and removes the role.
  const [ada, ben, cy] = patrons;
  patreon.setMembership(ada!.patreonId, patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  await discord.waitForMemberRole(guildId, ada!.member, gold, { present: false, timeoutMs: 60_000 });
  expect(discord.memberRoles(guildId, ben!.member)).toContain(silver);
  expect(discord.memberRoles(guildId, cy!.member)).toContain(gold);

  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  if (!scratch) {
    const again = run('restore', [file], { ...newEnv, SECRET_KEY: generatedKey }, newDir);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('The database is not empty');
  }
  const moved = scratch
    ? await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 1 })
    : await openDatabase({ engine: 'pglite', dataDir: newDir, logger: silentLogger });
  const after = await state(moved, generatedKey, guildId, patreon.creatorUserId);
  await moved.close();
  expect(after.links).toEqual(before.links);
  expect(after.settings).toEqual(before.settings);
  expect(after.ledger).toEqual(before.ledger.filter((g) => !g.startsWith(`${ada!.member}:`)));
}, 600_000);
