import path from 'node:path';
import { parseArgs } from 'node:util';
import { takeBackup } from '../edges/outbound/store/backup/take-backup';
import { packageVersion } from '../edges/outbound/store/package-root';
import { inStep } from '../shared/startup-step';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit, runCommand } from './cli-support';

const USAGE = `Usage: npm run backup -- --out <file>

  Writes a backup of Tierlink's database (the embedded one in DATA_DIR, or PostgreSQL with
  DATABASE_URL), whether Tierlink is running or not: one consistent moment, every table.
  npm run restore loads it into an empty database of either kind.

  --out <file>   where to write it (gzip-compressed JSON lines; readable by you only)
  --version      print Tierlink's version and exit`;

const kb = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KB`;

/**
 * `npm run backup`: a backup of the configured database (src/edges/outbound/store/backup), then a
 * summary on stdout, with the key its sealed values need. Exit codes: docs/operating.md.
 */
async function main(): Promise<void> {
  exitOnVersionFlag();
  let args;
  try {
    args = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, strict: true }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!args.out) {
    process.stderr.write(`--out is required\n${USAGE}\n`);
    process.exit(2);
  }
  const config = loadConfigOrExit('database-only');
  const logger = cliLogger(config, { stderr: true });
  const file = path.resolve(args.out);
  const summary = await inStep('database', () =>
    takeBackup({
      config,
      file,
      release: packageVersion(),
      onRoute: (route) =>
        logger.debug({ route }, route === 'embedded-running' ? 'the running Tierlink copied its database' : 'reading the database'),
    }),
  ).catch(exitOnError(logger, config));
  const key = summary.sealedWith;
  process.stdout.write(
    [
      `Backup written: ${summary.file}`,
      `  ${summary.tables} tables, ${summary.rows.toLocaleString('en-US')} rows, ${kb(summary.bytes)}; schema level ${summary.level.level}${
        summary.level.tag ? ` (${summary.level.tag})` : ''
      }, Tierlink ${packageVersion()}.`,
      key
        ? `  Its creator tokens and webhook secrets are sealed with the key ${key.keyId} (${key.source === 'SECRET_KEY' ? 'SECRET_KEY' : key.path}): keep that key with your backups; a restore needs it.`
        : '  It holds no sealed values that need a key.',
      '',
    ].join('\n'),
  );
}

if (require.main === module)
  runCommand('npm run backup', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }, { stderr: true }))(error));
