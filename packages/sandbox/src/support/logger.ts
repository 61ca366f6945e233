import type { Logger as PinoLogger } from 'pino';
import pino from 'pino';

/** What the stand-ins log through: pino's interface narrowed to what they call (the product's logger fits). */
export type Logger = Pick<PinoLogger, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'child' | 'level'>;

export const silentLogger: Logger = pino({ level: 'silent' });
