import { parseArgs } from 'node:util';
import { createTierlink } from '../main';
import { formatSyncReport } from '../core/sync-report';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit, runCommand } from './cli-support';

const USAGE = `Usage: npm run sync -- [--dry-run] [--json] [--force] [--adopt] [--guild <id>]

  --dry-run      print the plan of role changes; change nothing
  --json         print the summary (or the plan) as JSON
  --force        apply removals even above a server's mass-removal guard
  --adopt        also record the tier roles entitled patrons already hold (given by hand or by
                 another bot) as Tierlink's grants, so they go when those pledges end; no role
                 request is sent for them (with --dry-run: only count them)
  --guild <id>   only this Discord server
  --version      print Tierlink's version and exit`;

/**
 * `npm run sync`: one full sync now (the same code as the nightly run and `/sync`), then exit.
 * Exit code 0 when the run was ok, 1 when it failed or held removals, 2 on bad arguments.
 */
async function main(): Promise<void> {
  exitOnVersionFlag();
  let args;
  try {
    args = parseArgs({
      options: {
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        adopt: { type: 'boolean', default: false },
        guild: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfigOrExit('service');
  // Logs go to stderr so stdout holds only the report (pipe --json into jq).
  const logger = cliLogger({ logLevel: args.json ? 'warn' : config.logLevel }, { stderr: true });
  const tierlink = await createTierlink({ config, logger }).catch(exitOnError(logger, config));
  try {
    const outcome = await tierlink.services.runSync({
      trigger: 'cli',
      dryRun: args['dry-run'] === true,
      force: args.force === true,
      adopt: args.adopt === true,
      ...(args.guild ? { guildId: args.guild } : {}),
    });
    process.stdout.write(`${formatSyncReport(outcome, { json: args.json === true })}\n`);
    process.exitCode = 'skipped' in outcome || outcome.status !== 'ok' ? 1 : 0;
  } finally {
    await tierlink.stop();
  }
}

if (require.main === module) runCommand('npm run sync', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }))(error));
