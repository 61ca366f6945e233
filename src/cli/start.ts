import { type Tierlink, createTierlink } from '../main';
import { cliLogger, exitOnError, exitOnVersionFlag, loadConfigOrExit, runCommand } from './cli-support';
import { handleUnhandledRejections } from './process-faults';
import { handleShutdownSignals } from './shutdown-signals';

/** `npm start`: configuration, then the service, until SIGTERM or SIGINT (a second one exits at once). */
async function main(): Promise<void> {
  exitOnVersionFlag();
  const config = loadConfigOrExit('service');
  const logger = cliLogger(config);
  const fail = exitOnError(logger, config);
  let tierlink: Tierlink | undefined;
  handleUnhandledRejections({ process, logger, count: () => tierlink?.services.metrics.unhandledRejections.inc() });
  try {
    tierlink = await createTierlink({ config, logger });
  } catch (error) {
    return fail(error);
  }
  const service = tierlink;
  handleShutdownSignals({ signals: process, stop: () => service.stop(), exit: (code) => process.exit(code), logger });
  try {
    const { url } = await service.start();
    logger.info({ url }, 'Tierlink is running');
  } catch (error) {
    // Stopped first, so that the failure is the last line of the log.
    await service.stop().catch(() => undefined);
    fail(error);
  }
}

runCommand('npm start', main, (error) => exitOnError(cliLogger({ logLevel: 'info' }))(error));
