import { type Tierlink, createTierlink } from '../main';
import { cliLogger, exitOnError, loadConfigOrExit } from './cli-support';
import { handleUnhandledRejections } from './process-faults';
import { handleShutdownSignals } from './shutdown-signals';

/** `npm start`: configuration, then the service, until SIGTERM or SIGINT (a second one exits at once). */
async function main(): Promise<void> {
  const config = loadConfigOrExit('service');
  const logger = cliLogger(config);
  const fail = exitOnError(logger);
  let count: (() => void) | undefined;
  handleUnhandledRejections({ process, logger, count: () => count?.() });
  let tierlink: Tierlink;
  try {
    tierlink = await createTierlink({ config, logger });
  } catch (error) {
    return fail(error);
  }
  count = () => tierlink.services.metrics.unhandledRejections.inc();
  handleShutdownSignals({ signals: process, stop: () => tierlink.stop(), exit: (code) => process.exit(code), logger });
  try {
    const { url } = await tierlink.start();
    logger.info({ url }, 'Tierlink is running');
  } catch (error) {
    logger.error({ err: error }, 'start-up failed');
    await tierlink.stop().catch(() => undefined);
    fail(error);
  }
}

void main();
