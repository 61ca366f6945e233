import { openConfiguredDatabase } from '../edges/outbound/store/open-configured';
import { cliLogger, exitOnError, loadConfigOrExit, runCommand } from './cli-support';

/** `npm run migrate`: applies the database migrations and exits. */
async function main(): Promise<void> {
  const config = loadConfigOrExit('database-only');
  const logger = cliLogger(config);
  const database = await openConfiguredDatabase(config, logger);
  try {
    await database.migrate();
    logger.info({ engine: database.engine }, 'migrations applied');
  } finally {
    await database.close();
  }
}

if (require.main === module) runCommand('npm run migrate', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }))(error));
