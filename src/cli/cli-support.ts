import { type Config, type ConfigNeeds, parseConfig, readEnvironment } from '../config';
import { DataDirLockedError } from '../edges/outbound/store/data-dir-lock';
import { createLogger } from '../edges/outbound/observability/logger';
import type { Logger } from '../shared/logger';

/**
 * Reads the configuration or stops: one message naming every offending variable, exit code 2, no
 * stack trace (docs/contract.md: "A missing or malformed variable stops start-up with one clear message").
 */
export function loadConfigOrExit(needs: ConfigNeeds = 'service'): Config {
  const result = parseConfig(readEnvironment(), needs);
  if (!result.ok) {
    process.stderr.write(`${result.error.message}\n`);
    process.exit(2);
  }
  return result.value;
}

export function cliLogger(config: Pick<Config, 'logLevel'>, options: { stderr?: boolean } = {}): Logger {
  const stream = options.stderr ? process.stderr : process.stdout;
  return createLogger({ level: config.logLevel, pretty: stream.isTTY === true, stderr: options.stderr === true });
}

/** Expected failures end with their sentence, not a stack trace; anything else is a bug and shows it. */
export function exitOnError(logger: Logger) {
  return (error: unknown): never => {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(3);
    }
    logger.fatal({ err: error }, 'stopped by an unexpected error');
    process.exit(1);
  };
}

/**
 * Runs a command's `main` so that it finishes or fails loudly. Node ends a process whose event loop
 * is empty even while `main` still awaits something (a wait on a timer that does not hold the loop
 * open, a promise nobody will settle): the work would stop halfway with exit code 0 and nothing
 * said. Should that happen, the command says so on stderr and exits 1. Errors `main` throws end as
 * {@link exitOnError} ends them.
 */
export function runCommand(name: string, main: () => Promise<void>, onError: (error: unknown) => void): void {
  let settled = false;
  const stalled = () => {
    if (settled) return;
    process.stderr.write(
      `${name} stopped before its work was done: nothing was left that could finish it (a bug in Tierlink; please report it)\n`,
    );
    process.exit(1);
  };
  process.on('beforeExit', stalled);
  main().then(
    () => {
      settled = true;
      process.off('beforeExit', stalled);
    },
    (error: unknown) => {
      settled = true;
      process.off('beforeExit', stalled);
      onError(error);
    },
  );
}
