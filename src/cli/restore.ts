import path from 'node:path';
import { parseArgs } from 'node:util';
import { acquireDataDirLock } from '../edges/outbound/store/data-dir-lock';
import { restoreBackup } from '../edges/outbound/store/backup/restore-backup';
import { openPgliteSession, openPostgresSession, type SqlSession } from '../edges/outbound/store/backup/sql-session';
import { describeLevel } from '../edges/outbound/store/schema-level';
import { SECRET_KEY_FILE, readSecretKeyFile } from '../edges/outbound/store/secret-key';
import { packageVersion } from '../edges/outbound/store/package-root';
import { inStep } from '../shared/startup-step';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit, runCommand } from './cli-support';

const USAGE = `Usage: npm run restore -- <file>

  Loads a backup written by npm run backup into an EMPTY database: PostgreSQL when DATABASE_URL is
  set, otherwise the embedded database in DATA_DIR (stop Tierlink first). A database that holds
  anything is refused. A backup from an older Tierlink is migrated forward.
  The stored creator tokens and webhook secrets need the key they were sealed with: SECRET_KEY
  (or, embedded, DATA_DIR/secret.key); the restore names the key when it is not the one set.

  --version      print Tierlink's version and exit`;

/** `npm run restore`: src/edges/outbound/store/backup/restore-backup.ts, then a summary. Exit codes: docs/operating.md. */
async function main(): Promise<void> {
  exitOnVersionFlag();
  let parsed;
  try {
    parsed = parseArgs({ options: { help: { type: 'boolean', short: 'h', default: false } }, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`name one backup file\n${USAGE}\n`);
    process.exit(2);
  }
  const file = path.resolve(parsed.positionals[0]!);
  const config = loadConfigOrExit('database-only');
  const logger = cliLogger(config, { stderr: true });
  const fail = exitOnError(logger, config);
  const embedded = !config.databaseUrl;
  const keyFromFile = embedded && !config.secretKey ? readSecretKeyFile(config.dataDir) : null;
  const keys = {
    current: config.secretKey ?? keyFromFile,
    previous: config.secretKeyPrevious ?? null,
    currentName: config.secretKey ? 'SECRET_KEY' : `the key in ${path.join(config.dataDir, SECRET_KEY_FILE)}`,
  };

  const lock = embedded ? await inStep('database', async () => acquireDataDirLock(config.dataDir)).catch(fail) : null;
  let session: SqlSession | null = null;
  try {
    session = await inStep('database', () =>
      config.databaseUrl ? openPostgresSession(config.databaseUrl) : openPgliteSession(path.join(config.dataDir, 'pglite')),
    );
    const target = session;
    const report = await inStep('database', () => restoreBackup({ file, session: target, keys, release: packageVersion() }));
    process.stdout.write(
      [
        `Restored ${path.basename(file)} into ${embedded ? `the embedded database in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}:`,
        `  ${report.tables} tables, ${report.rows.toLocaleString('en-US')} rows, made by Tierlink ${report.header.release} on ${report.header.createdAt.slice(0, 16).replace('T', ' ')} UTC;`,
        `  loaded at schema ${describeLevel(report.from)}${report.to.level > report.from.level ? `, then migrated to ${describeLevel(report.to)}` : ''}.`,
        `  Start Tierlink with this ${embedded ? 'DATA_DIR' : 'DATABASE_URL'}${keys.current ? ` and the same ${config.secretKey ? 'SECRET_KEY' : 'key file'}` : ''}.`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    await session?.close().catch(() => undefined);
    session = null;
    lock?.release();
    return fail(error);
  } finally {
    await session?.close();
    lock?.release();
  }
}

if (require.main === module)
  runCommand('npm run restore', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }, { stderr: true }))(error));
