import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { OUTSIDE_TEXT_MAX, boundText } from '../../../shared/bounded-text';
import type { Logger } from '../../../shared/logger';

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
  'req.query.code',
  'req.body.code',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-patreon-signature"]',
  'req.headers["x-service-signature"]',
  'res.headers["set-cookie"]',
];

const REDACTED = '[redacted]';

/**
 * A `code` field is either an OAuth authorization code (a secret: random letters of both cases and
 * digits) or the code of a failure, which the operator needs to read: a number (Discord's JSON error
 * codes, gateway close codes), a constant (an errno such as `ENOTFOUND`, `ERR_…`, a PostgreSQL
 * SQLSTATE such as `28P01`) or one of our problem kinds (`missing_permissions`). Those stay; anything
 * else under a `code` key is redacted.
 */
export function isFailureCode(value: unknown): boolean {
  if (typeof value === 'number') return true;
  return typeof value === 'string' && (/^[A-Z0-9_]{2,40}$/.test(value) || /^[a-z]+(?:_[a-z]+)*$/.test(value));
}

/** pino's censor: every redacted path reads "[redacted]", except a failure's code (see {@link isFailureCode}). */
export function censor(value: unknown, path: ReadonlyArray<string | symbol>): unknown {
  return path.at(-1) === 'code' && isFailureCode(value) ? value : REDACTED;
}

/** Query parameters that carry secrets, in any letter case. */
const SECRET_PARAMS = new Set(['code', 'state', 'token', 'access_token', 'refresh_token', 'ticket', 'csrf', 'code_verifier']);

/**
 * Secrets that travel in URLs: the one-time link tokens in `/link/:token` and `/connect/:token`,
 * the OAuth `code` and `state` on the callback, and a campaign chooser's `ticket` (it is posted, but
 * an old link or a hand-made GET may carry one). Any URL we log goes through this first. Paths are
 * matched as the router matches them, and then some: in any letter case (Express routes
 * `/Link/<token>` to the link page), percent-encoded or not, with repeated slashes.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const query = at < 0 ? undefined : url.slice(at + 1);
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not valid percent-encoding: matched as it is.
  }
  // `/connect/choose` names a route, not a token.
  const token = /^\/+(link|connect)\/+(?!choose(?:$|\/))[^/]+/i;
  const safePath = token.test(decoded) ? decoded.replace(token, (_m, name: string) => `/${name}/[redacted]`) : path;
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const key of [...new Set(params.keys())]) if (SECRET_PARAMS.has(key.toLowerCase())) params.set(key, '[redacted]');
  return `${safePath}?${params.toString()}`;
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/**
 * Every string of a log line's fields cut to {@link OUTSIDE_TEXT_MAX} characters, arrays to 50
 * items, plain objects followed 4 levels deep: a field may carry text from outside (a header, a URL,
 * a service's error body), and one request must not be able to write kilobytes of log. Objects
 * with a serializer (requests, errors) are left to it.
 */
export function boundFields(value: unknown, depth = 0, any = false): unknown {
  if (typeof value === 'string') return value.length > OUTSIDE_TEXT_MAX ? boundText(value) : value;
  if (Array.isArray(value)) {
    if (depth >= 4) return `[array of ${value.length}]`;
    const kept = value.slice(0, 50).map((v) => boundFields(v, depth + 1, any));
    return value.length > 50 ? [...kept, `…[${value.length - 50} more]`] : kept;
  }
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (typeof value !== 'object' || value === null || !(any || isPlain(value))) return value;
  if (depth >= 4) return '[object]';
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = boundFields(v, depth + 1, any);
  return out;
}

/**
 * pino's error serializer, bounded: the message (which may quote a service's answer) and every
 * other field as in {@link boundFields}, the stack's first line rebuilt from the bounded message
 * and at most 15 frames.
 */
export function boundedError(error: Error): Record<string, unknown> {
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  // The serialized error and what it holds (a service's raw answer) are not plain objects: follow them all.
  const out = boundFields({ ...serialized, stack: undefined }, 0, true) as Record<string, unknown>;
  const message = typeof serialized.message === 'string' ? boundText(serialized.message, 2 * OUTSIDE_TEXT_MAX) : '';
  out.message = message;
  if (typeof serialized.stack === 'string') {
    const frames = serialized.stack.split('\n').filter((line) => /^\s+at /.test(line));
    out.stack = [`${String(serialized.type ?? 'Error')}: ${message}`, ...frames.slice(0, 15).map((f) => boundText(f))].join('\n');
  }
  return out;
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
    redact: { paths: REDACT_PATHS, censor: censor as (value: unknown, path: string[]) => unknown },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: boundedError as (e: Error) => object },
    formatters: { log: (fields) => boundFields(fields) as Record<string, unknown> },
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
