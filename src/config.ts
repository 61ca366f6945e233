import fs from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import express from 'express';
import { validate as isValidCron } from 'node-cron';
import { z } from 'zod';
import { type Result, err, ok } from './core/result';
import { isLoopbackHost } from './shared/loopback';

/**
 * The only reader of `process.env` (see docs/contract.md, "Configuration"). Everything else receives a
 * frozen {@link Config}. Parsing happens once, at start-up, and reports every problem at once so an
 * operator fixes the environment in one go instead of one restart per variable.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const required = (what: string) => z.preprocess(blankToUndefined, z.string({ error: `required: ${what}` }).trim());

const optional = () => z.preprocess(blankToUndefined, z.string().trim().optional());

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          return url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
          return false;
        }
      },
      { error: `must be an http(s) URL (${what})` },
    )
    .transform((value) => value.replace(/\/+$/, ''));

const snowflake = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^\d{17,20}$/, { error: `must be a Discord id: 17–20 digits (${what})` });

/** Comma-separated Discord ids; blanks between commas are ignored, duplicates kept once. */
const snowflakeList = (what: string) =>
  z
    .string()
    .trim()
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ),
    ])
    .refine((ids) => ids.every((id) => /^\d{17,20}$/.test(id)), {
      error: `must be Discord ids (17–20 digits) separated by commas (${what})`,
    });

/** A bearer token someone outside sends: long enough not to be guessed. */
const bearerToken = (what: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .min(16, { error: `must be at least 16 characters (${what}; e.g. \`openssl rand -hex 24\`)` })
      .regex(/^[\x21-\x7e]+$/, { error: `must be printable characters without spaces (${what})` })
      .optional(),
  );

/** A time zone name the runtime knows (IANA, as node-cron's `timezone` option takes it). */
function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * TRUST_PROXY in Express's `trust proxy` syntax: `true`/`false`, a number of hops, or addresses,
 * subnets and the names `loopback`, `linklocal`, `uniquelocal`, separated by commas. Checked by
 * Express itself, so what starts is what Express will use.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((value): boolean | number | string =>
    value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value,
  )
  .refine(
    (value) => {
      try {
        express().set('trust proxy', value);
        return true;
      } catch {
        return false;
      }
    },
    {
      error:
        'must be Express’s `trust proxy` setting: true, false, a number of hops, or addresses, subnets and loopback, linklocal, uniquelocal separated by commas (e.g. "loopback" or "loopback, 10.0.0.5")',
    },
  );

const schema = z
  .object({
    DISCORD_TOKEN: required('the bot token from the Discord Developer Portal → Bot'),
    DISCORD_APPLICATION_ID: z.preprocess(
      blankToUndefined,
      z
        .string({ error: 'required: the application id from the Developer Portal → General Information' })
        .pipe(snowflake('the application id from the Developer Portal → General Information')),
    ),
    DISCORD_GUILD_ID: z.preprocess(blankToUndefined, snowflake('the server to register commands on').optional()),
    DISCORD_GUILD_IDS: z.preprocess(
      blankToUndefined,
      snowflakeList('the servers creator tokens from the environment may bind').default([] as string[]),
    ),
    DISCORD_API_BASE_URL: z.preprocess(blankToUndefined, httpUrl("base of Discord's HTTP API").default('https://discord.com/api')),
    PATREON_BASE_URL: z.preprocess(blankToUndefined, httpUrl("the membership service's base URL").default('https://www.patreon.com')),
    PATREON_CLIENT_ID: required('the OAuth client id of your registered client'),
    PATREON_CLIENT_SECRET: required('the OAuth client secret of your registered client'),
    PATREON_CREATOR_ACCESS_TOKEN: optional(),
    PATREON_CREATOR_REFRESH_TOKEN: optional(),
    PATREON_CAMPAIGN_ID: z.preprocess(
      blankToUndefined,
      z.string().trim().regex(/^\d+$/, { error: 'must be a numeric campaign id' }).optional(),
    ),
    PATREON_WEBHOOK_SECRET: optional(),
    PATREON_CURRENCY: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^[A-Za-z]{3}$/, { error: 'must be a three-letter currency code such as EUR' })
        .transform((code) => code.toUpperCase())
        .refine((code) => Intl.supportedValuesOf('currency').includes(code), { error: 'must be a currency code Intl knows, such as EUR' })
        .default('USD'),
    ),
    KOFI_VERIFICATION_TOKEN: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .min(8, { error: 'must be the verification token of your Ko-fi webhook (Ko-fi: Settings → API → Webhooks → Advanced)' })
        .max(200, { error: 'is longer than any Ko-fi verification token (200 characters at most)' })
        .optional(),
    ),
    PUBLIC_URL: z.preprocess(blankToUndefined, httpUrl('where people and the service reach this server').optional()),
    PORT: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be a port number between 0 and 65535' })
        .transform(Number)
        .refine((n) => n >= 0 && n <= 65535, { error: 'must be a port number between 0 and 65535' })
        .default(3000),
    ),
    DATABASE_URL: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^postgres(ql)?:\/\//, { error: 'must be a postgres:// or postgresql:// connection string' })
        .optional(),
    ),
    DATA_DIR: z.preprocess(blankToUndefined, z.string().trim().default('./data')),
    SECRET_KEY: z.preprocess(
      blankToUndefined,
      z.string().trim().min(32, { error: 'must be at least 32 characters (e.g. `openssl rand -base64 32`)' }).optional(),
    ),
    SECRET_KEY_PREVIOUS: z.preprocess(
      blankToUndefined,
      z.string().trim().min(32, { error: 'must be at least 32 characters: the SECRET_KEY used before this one' }).optional(),
    ),
    HEALTH_TOKEN: bearerToken('the bearer token for the detailed /healthz'),
    TRUST_PROXY: z.preprocess(blankToUndefined, trustProxy.default('loopback')),
    METRICS_TOKEN: bearerToken('the bearer token for /metrics'),
    SYNC_SCHEDULE: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .refine((value) => isValidCron(value), { error: 'must be a cron expression, e.g. "0 4 * * *"' })
        .default('0 4 * * *'),
    ),
    SYNC_TIMEZONE: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .refine((value) => isTimeZone(value), { error: 'must be an IANA time zone, e.g. "UTC", "Europe/Berlin" or "America/New_York"' })
        .default('UTC'),
    ),
    BACKUP_DIR: optional(),
    BACKUP_SCHEDULE: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .refine((value) => isValidCron(value), { error: 'must be a cron expression, e.g. "30 3 * * *" (read in SYNC_TIMEZONE)' })
        .default('30 3 * * *'),
    ),
    BACKUP_KEEP: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be how many scheduled backups to keep: a whole number from 1 to 1000' })
        .transform(Number)
        .refine((n) => n >= 1 && n <= 1000, { error: 'must be how many scheduled backups to keep: a whole number from 1 to 1000' })
        .default(7),
    ),
    // ---- several instances (docs/decisions.md §17) ----
    DISCORD_SHARD_COUNT: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be a whole number of gateway shards, from 1 to 100000' })
        .transform(Number)
        .refine((n) => n >= 1 && n <= 100_000, { error: 'must be a whole number of gateway shards, from 1 to 100000' })
        .optional(),
    ),
    DISCORD_PUBLIC_KEY: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^[0-9a-fA-F]{64}$/, {
          error: 'must be the application’s public key: 64 hex digits (Developer Portal → General Information)',
        })
        .optional(),
    ),
    LOG_LEVEL: z.preprocess(
      (value) => (typeof value === 'string' ? blankToUndefined(value.toLowerCase()) : value),
      z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ),
    // Every page signs the person in with Discord (docs/contract.md, third round): /link, /connect, the join page, the dashboard.
    DISCORD_CLIENT_SECRET: required('the application’s OAuth2 client secret from the Developer Portal → OAuth2'),
    DISCORD_WEB_BASE_URL: z.preprocess(
      blankToUndefined,
      httpUrl("where Discord's OAuth2 authorize page lives").default('https://discord.com'),
    ),
  })
  .superRefine((env, ctx) => {
    if (env.DATABASE_URL && !env.SECRET_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRET_KEY'],
        message: 'required with DATABASE_URL (every instance must share it; e.g. `openssl rand -base64 32`)',
      });
    }
    if (env.SECRET_KEY_PREVIOUS && env.SECRET_KEY_PREVIOUS === env.SECRET_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRET_KEY_PREVIOUS'],
        message: 'is the same as SECRET_KEY: during a rotation it holds the old key, afterwards remove it',
      });
    }
    if (env.PATREON_CREATOR_REFRESH_TOKEN && !env.PATREON_CREATOR_ACCESS_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['PATREON_CREATOR_ACCESS_TOKEN'],
        message: 'required when PATREON_CREATOR_REFRESH_TOKEN is set',
      });
    }
  });

export interface Config {
  discord: {
    token: string;
    applicationId: string;
    guildId: string | undefined;
    /**
     * DISCORD_GUILD_IDS: with DISCORD_GUILD_ID, the only servers the creator tokens from the
     * environment bind (docs/contract.md, second round).
     */
    bindGuildIds: string[];
    apiBaseUrl: string;
  };
  patreon: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    creatorAccessToken: string | undefined;
    creatorRefreshToken: string | undefined;
    campaignId: string | undefined;
    webhookSecret: string | undefined;
    /**
     * PATREON_CURRENCY: the currency the campaign's prices are in. Patreon's API states a campaign's
     * cadence (`is_monthly`) but not its currency (docs/i18n.md); US dollars by default.
     */
    currency: string;
  };
  /** KOFI_VERIFICATION_TOKEN: Ko-fi payments are accepted at `POST /webhooks/kofi` only when set. */
  kofi: { verificationToken: string | undefined };
  /** `undefined` means `http://localhost:<the port we listen on>`, which is only known after listen when PORT=0. */
  publicUrl: string | undefined;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  secretKey: string | undefined;
  /** SECRET_KEY_PREVIOUS: values sealed with it are opened and sealed again with the current key. */
  secretKeyPrevious: string | undefined;
  /** HEALTH_TOKEN: the bearer token for the detailed `/healthz` from outside the loopback address. */
  healthToken: string | undefined;
  /** METRICS_TOKEN: the bearer token for `/metrics` from outside the loopback address. */
  metricsToken: string | undefined;
  /**
   * TRUST_PROXY: whose forwarding headers name the client (its rate-limit budget, its address in
   * the log); Express's `trust proxy`. Default: the loopback address only.
   */
  trustProxy: boolean | number | string;
  syncSchedule: string;
  /** SYNC_TIMEZONE: the IANA time zone SYNC_SCHEDULE is read in (UTC by default, whatever the machine's). */
  syncTimezone: string;
  /** Scheduled backups (docs/operating.md, "Backups"): off without BACKUP_DIR. */
  backups: {
    /** BACKUP_DIR: where scheduled backups are written; none when undefined. */
    dir: string | undefined;
    /** BACKUP_KEEP: how many of them are kept (the oldest go). */
    keep: number;
    /** BACKUP_SCHEDULE: when, read in SYNC_TIMEZONE. */
    schedule: string;
  };
  logLevel: (typeof LOG_LEVELS)[number];
  /** Sign-in with Discord: the pages of `/link` and `/connect`, the join page and the dashboard. */
  discordOAuth: {
    /** DISCORD_CLIENT_SECRET: the application's OAuth2 secret (the client id is DISCORD_APPLICATION_ID). */
    clientSecret: string;
    /** DISCORD_WEB_BASE_URL: the authorize page is `{webBaseUrl}/oauth2/authorize`. */
    webBaseUrl: string;
  };
  /** Several instances (docs/decisions.md §17). */
  instances: {
    /** DISCORD_SHARD_COUNT: the gateway's shard count; Discord's recommendation (`GET /gateway/bot`) when absent. */
    shardCount: number | undefined;
    /** DISCORD_PUBLIC_KEY: `POST /interactions` takes Discord's HTTP interactions when set. */
    publicKey: string | undefined;
  };
}

export interface ConfigProblem {
  variable: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(formatProblems(problems));
  }

  override get name(): string {
    return 'ConfigError';
  }
}

function formatProblems(problems: ConfigProblem[]): string {
  const lines = problems.map((p) => `  - ${p.variable}: ${p.message}`);
  return `Tierlink cannot start: the configuration has ${problems.length} problem${problems.length === 1 ? '' : 's'}.\n${lines.join('\n')}\nSet them in the environment or in .env (see .env.example).`;
}

/** What each command needs beyond the common variables. `migrate` touches only the database. */
export type ConfigNeeds = 'service' | 'database-only';

/**
 * Parses an environment into a {@link Config}. Pure: the caller passes the environment (see
 * {@link readEnvironment}), so tests need not touch `process.env`.
 */
export function parseConfig(env: Record<string, string | undefined>, needs: ConfigNeeds = 'service'): Result<Config, ConfigError> {
  const input =
    needs === 'database-only'
      ? {
          DISCORD_TOKEN: 'unused',
          DISCORD_APPLICATION_ID: '00000000000000000',
          PATREON_CLIENT_ID: 'unused',
          PATREON_CLIENT_SECRET: 'unused',
          DISCORD_CLIENT_SECRET: 'unused',
          ...env,
        }
      : env;
  const parsed = schema.safeParse(input);
  const problems: ConfigProblem[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? 'environment');
      if (!problems.some((p) => p.variable === variable)) problems.push({ variable, message: issue.message });
    }
  }
  if (!parsed.success) {
    const order = Object.keys(schema.shape);
    problems.sort((a, b) => order.indexOf(a.variable) - order.indexOf(b.variable));
    return err(new ConfigError(problems));
  }
  const e = parsed.data;
  return ok(
    Object.freeze({
      discord: {
        token: e.DISCORD_TOKEN,
        applicationId: e.DISCORD_APPLICATION_ID,
        guildId: e.DISCORD_GUILD_ID,
        bindGuildIds: [...new Set([...(e.DISCORD_GUILD_ID ? [e.DISCORD_GUILD_ID] : []), ...e.DISCORD_GUILD_IDS])],
        apiBaseUrl: e.DISCORD_API_BASE_URL,
      },
      patreon: {
        baseUrl: e.PATREON_BASE_URL,
        clientId: e.PATREON_CLIENT_ID,
        clientSecret: e.PATREON_CLIENT_SECRET,
        creatorAccessToken: e.PATREON_CREATOR_ACCESS_TOKEN,
        creatorRefreshToken: e.PATREON_CREATOR_REFRESH_TOKEN,
        campaignId: e.PATREON_CAMPAIGN_ID,
        webhookSecret: e.PATREON_WEBHOOK_SECRET,
        currency: e.PATREON_CURRENCY,
      },
      kofi: { verificationToken: e.KOFI_VERIFICATION_TOKEN },
      publicUrl: e.PUBLIC_URL,
      port: e.PORT,
      databaseUrl: e.DATABASE_URL,
      dataDir: path.resolve(e.DATA_DIR),
      secretKey: e.SECRET_KEY,
      secretKeyPrevious: e.SECRET_KEY_PREVIOUS,
      healthToken: e.HEALTH_TOKEN,
      metricsToken: e.METRICS_TOKEN,
      trustProxy: e.TRUST_PROXY,
      syncSchedule: e.SYNC_SCHEDULE,
      syncTimezone: e.SYNC_TIMEZONE,
      backups: {
        dir: e.BACKUP_DIR === undefined ? undefined : path.resolve(e.BACKUP_DIR),
        keep: e.BACKUP_KEEP,
        schedule: e.BACKUP_SCHEDULE,
      },
      logLevel: e.LOG_LEVEL,
      discordOAuth: { clientSecret: e.DISCORD_CLIENT_SECRET, webBaseUrl: e.DISCORD_WEB_BASE_URL },
      instances: { shardCount: e.DISCORD_SHARD_COUNT, publicKey: e.DISCORD_PUBLIC_KEY?.toLowerCase() },
    }),
  );
}

/**
 * The process environment with `.env` (when present in `cwd`) underneath it: a variable set in the
 * real environment wins over the file, as with dotenv's default.
 */
export function readEnvironment(cwd: string = process.cwd()): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  let fromFile: Record<string, string> = {};
  if (fs.existsSync(file)) fromFile = parseDotenv(fs.readFileSync(file));
  return { ...fromFile, ...process.env };
}

/** Effective public URL: PUBLIC_URL, or `http://localhost:<port>` once the port is known. */
export function resolvePublicUrl(config: Pick<Config, 'publicUrl'>, listeningPort: number): string {
  return config.publicUrl ?? `http://localhost:${listeningPort}`;
}

/**
 * The start-up warning for a PUBLIC_URL that people and the service reach over plain HTTP: OAuth
 * codes, link tokens and the pages travel readable on the way. Null for https and for loopback.
 */
export function publicUrlWarning(publicUrl: string): string | null {
  const url = new URL(publicUrl);
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `PUBLIC_URL ${url.origin} is plain http: OAuth codes, one-time links and webhook deliveries cross the network unencrypted. Put Tierlink behind HTTPS and set PUBLIC_URL to the https address.`;
}
