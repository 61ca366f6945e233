import type { Logger as PinoLogger } from 'pino';
import pino from 'pino';

/**
 * The logging port. It is pino's own interface narrowed to what we call, so production passes the
 * real pino logger and tests pass `silentLogger` or a pino writing to memory.
 */
export type Logger = Pick<PinoLogger, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'child' | 'level'>;

/** A logger that drops everything: the default for tests that do not read logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
