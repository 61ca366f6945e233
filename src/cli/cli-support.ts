import { type Config, type ConfigNeeds, parseConfig, readEnvironment } from '../config';
import { DataDirLockedError } from '../edges/outbound/store/data-dir-lock';
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
