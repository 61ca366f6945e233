import { openConfiguredDatabase } from '../edges/outbound/store/open-configured';
import { inStep } from '../shared/startup-step';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit, runCommand } from './cli-support';

/** `npm run migrate`: applies the database migrations and exits (exit codes: docs/operating.md). */
async function main(): Promise<void> {
  exitOnVersionFlag();
  const config = loadConfigOrExit('database-only');
  const logger = cliLogger(config);
  const fail = exitOnError(logger, config);
  const database = await inStep('database', () => openConfiguredDatabase(config, logger)).catch(fail);
  try {
    await inStep('database', () => database.migrate());
    logger.info({ engine: database.engine }, 'migrations applied');
  } catch (error) {
    await database.close().catch(() => undefined);
    return fail(error);
  }
  await database.close();
}

if (require.main === module) runCommand('npm run migrate', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }))(error));
