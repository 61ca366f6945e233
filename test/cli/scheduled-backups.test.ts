import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { BACKUP_NAME } from '../../src/app/housekeeping/scheduled-backups';
import { inventoryBackup } from '../../src/edges/outbound/store/backup/read-backup';
import { sandboxCommand } from '../support/e2e';
import { MANAGE_ROLES } from '../support/e2e-admin';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * Scheduled backups (BACKUP_DIR, BACKUP_KEEP, BACKUP_SCHEDULE) in a real `npm start`: each run
 * writes a backup that restores, the folder keeps the newest BACKUP_KEEP, and `/doctor` shows the
 * last one, or the failure and its fix.
 */

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let work: string;
let scratch: ScratchPostgres | null = null;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-scheduled-'));
  if (onPostgres()) scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_scheduled');
});

afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await discord.close();
  await patreon.close();
  await scratch?.drop();
  fs.rmSync(work, { recursive: true, force: true });
});

test(`every scheduled run writes a backup, the newest BACKUP_KEEP stay, /doctor shows the last (${onPostgres() ? 'PostgreSQL' : 'embedded, from the running service'}); a folder that cannot be written is a /doctor problem with its fix`, async () => {
  const ownerId = '100000000000000099';
  const { guildId } = discord.createGuild({ name: 'Backup Club', ownerId });
  const dataDir = path.join(work, 'data');
  const backupDir = path.join(work, 'backups');
  const env = {
    ...standInEnvironment(patreon, discord, guildId),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    BACKUP_DIR: backupDir,
    BACKUP_KEEP: '2',
    // Every four seconds (node-cron's six fields: seconds first), to see several runs.
    BACKUP_SCHEDULE: '*/4 * * * * *',
    SYNC_TIMEZONE: 'Europe/Berlin',
    ...(scratch ? { DATABASE_URL: scratch.url, SECRET_KEY: 'scheduled-backups-secret-key-long-enough-1' } : {}),
  };
  fs.mkdirSync(dataDir);
  const service = startServiceProcess(env, dataDir);
  children.push(service);
  await service.running();
  expect(await service.logged('scheduled backups on')).toMatchObject({ dir: backupDir, keep: 2, timezone: 'Europe/Berlin' });
  const written = () => service.lines.filter((l) => l.msg === 'scheduled backup written');
  for (let waited = 0; written().length < 3; waited += 250) {
    if (waited > 150_000) throw new Error(`only ${written().length} scheduled backups: ${JSON.stringify(service.lines.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const doctor = await sandboxCommand({ discord, guildId }, ownerId, 'doctor', [], MANAGE_ROLES);
  expect(doctor.content).toMatch(
    new RegExp(
      `✅ \\*\\*Backups\\*\\*: the last at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: tierlink-backup-\\d{8}T\\d{6}Z\\.jsonl\\.gz \\(\\d+ KB\\) in ${backupDir}; the newest 2 are kept`,
    ),
  );
  // Stopping ends a backup in progress without leaving a file; the folder holds the newest two.
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  const files = fs.readdirSync(backupDir).sort();
  expect(files.filter((f) => BACKUP_NAME.test(f))).toEqual(files);
  expect(files.length).toBe(2);
  const newest = await inventoryBackup(path.join(backupDir, files.at(-1)!));
  expect(newest.header.engine).toBe(scratch ? 'postgres' : 'pglite');
  expect(newest.tables.map((t) => t.table.table)).toContain('app_state');

  // A BACKUP_DIR that cannot exist (a file is in the way): the run fails, the older backups stay, /doctor says what to do.
  const blocked = path.join(work, 'a-file');
  fs.writeFileSync(blocked, 'not a folder');
  const again = startServiceProcess({ ...env, BACKUP_DIR: path.join(blocked, 'backups') }, dataDir);
  children.push(again);
  await again.running();
  const failed = await again.logged((l) => typeof l.msg === 'string' && l.msg.startsWith('scheduled backup failed: '), 60_000);
  expect(failed.level).toBe(50);
  const problem = await sandboxCommand({ discord, guildId }, ownerId, 'doctor', [], MANAGE_ROLES);
  expect(problem.content).toContain('❌ **Backups**: the last scheduled backup (');
  expect(problem.content).toMatch(/failed: .*ENOTDIR/);
  expect(problem.content).toContain(`Check that ${path.join(blocked, 'backups')} exists, that Tierlink's user may write there`);
  expect(fs.readdirSync(backupDir)).toEqual(files);
  again.child.kill('SIGTERM');
  expect(await again.exited).toBe(0);
}, 300_000);
