import { openConfiguredDatabase } from '../edges/outbound/store/open-configured';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit } from './cli-support';

/** `npm run migrate`: applies the database migrations and exits. */
async function main(): Promise<void> {
  exitOnVersionFlag();
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

if (require.main === module) main().catch((error) => exitOnError(cliLogger({ logLevel: 'info' }))(error));
