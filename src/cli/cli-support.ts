import { type Config, type ConfigNeeds, parseConfig, readEnvironment } from '../config';
import { ExitCode, explainContext, explainFailure } from '../edges/outbound/observability/explain-failure';
import { createLogger } from '../edges/outbound/observability/logger';
import { packageVersion } from '../edges/outbound/store/package-root';
import type { Logger } from '../shared/logger';

/**
 * `--version` on any command: prints the release (`tierlink 0.2.0`) and exits 0, before the
 * configuration is read, so it works on a machine that has none yet.
 */
export function exitOnVersionFlag(argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes('--version')) return;
  process.stdout.write(`tierlink ${packageVersion()}\n`);
  process.exit(0);
}

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

/** Whether the log shows debug lines: only then does an explained failure carry its stack trace. */
const debugging = (logger: Logger) => logger.level === 'debug' || logger.level === 'trace';

/**
 * Ends the process on a failure: one log line and an exit code a supervisor understands
 * (docs/operating.md, "Exit codes"). A failure the operator can fix (a refused token, a port in use,
 * a database that does not answer) is its sentence, naming the variable and the fix, without a
 * stack trace unless LOG_LEVEL is debug; anything else is a bug and shows its stack.
 */
export function exitOnError(logger: Logger, config?: Parameters<typeof explainContext>[0]) {
  return (error: unknown): never => {
    const explained = explainFailure(error, explainContext(config ?? {}));
    if (explained) {
      logger.fatal({ exitCode: explained.exitCode, ...(debugging(logger) ? { err: error } : {}) }, explained.message);
      process.exit(explained.exitCode);
    }
    logger.fatal(
      { err: error, exitCode: ExitCode.bug },
      'stopped by an unexpected error (a bug: please report it with this line; the fix is not in your settings)',
    );
    process.exit(ExitCode.bug);
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
