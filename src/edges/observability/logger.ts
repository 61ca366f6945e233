import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Logger } from '../../shared/logger';

/**
 * Where secrets could appear in structured logs. pino replaces them with "[redacted]" before a
 * line is written. Messages themselves never carry secrets: call sites log ids, not tokens.
 */
export const REDACT_PATHS = [
  'token',
  'accessToken',
  'refreshToken',
  'access_token',
  'refresh_token',
  'code',
  'secret',
  'signature',
  'clientSecret',
  'client_secret',
  'ticket',
  'csrf',
  'codeVerifier',
  'code_verifier',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.code',
  '*.secret',
  '*.signature',
  '*.clientSecret',
  '*.client_secret',
  '*.ticket',
  '*.codeVerifier',
  '*.code_verifier',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-patreon-signature"]',
  'req.headers["x-service-signature"]',
  'res.headers["set-cookie"]',
];

/**
 * Secrets that travel in URLs: the one-time link tokens in `/link/:token` and `/connect/:token`,
 * the OAuth `code` and `state` on the callback, and a campaign chooser's `ticket` (it is posted, but
 * an old link or a hand-made GET may carry one). Any URL we log goes through this first.
 */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  // `/connect/choose` names a route, not a token.
  const safePath = path.replace(/^\/(link|connect)\/(?!choose(?:$|\/))[^/]+/, '/$1/[redacted]');
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const key of ['code', 'state', 'token', 'access_token', 'refresh_token', 'ticket', 'csrf', 'code_verifier']) {
    if (params.has(key)) params.set(key, '[redacted]');
  }
  return `${safePath}?${params.toString()}`;
}

export interface LoggerSetup {
  level: string;
  /** Pretty, coloured lines for a person at a terminal; JSON otherwise (production, CI, files). */
  pretty?: boolean;
  destination?: DestinationStream;
  /** Write to stderr (CLI commands whose stdout is their output). */
  stderr?: boolean;
}

export function createLogger(setup: LoggerSetup): Logger {
  const options: LoggerOptions = {
    level: setup.level,
    base: { service: 'tierlink' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (setup.destination) return pino(options, setup.destination);
  const fd = setup.stderr ? 2 : 1;
  if (setup.pretty) {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', destination: fd },
      },
    });
  }
  return pino(options, pino.destination({ fd, sync: true }));
}
