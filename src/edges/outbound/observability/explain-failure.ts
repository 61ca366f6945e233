import { DiscordAPIError } from '@discordjs/rest';
import type { Config } from '../../../config';
import { StartupStepError, type StartupStep } from '../../../shared/startup-step';
import { PatreonApiError } from '../patreon/errors';
import { DataDirLockedError } from '../store/data-dir-lock';
import { DatabaseNewerError } from '../store/schema-level';
import { BackupFileError } from '../store/backup/read-backup';
import { RestoreRefusedError } from '../store/backup/restore-backup';
import { RunningServiceError } from '../store/backup/running-service';

/**
 * The exit codes of Tierlink's commands, for a supervisor (docs/operating.md, "Exit codes"):
 * restart on 4 (something outside did not answer, it may come back), do not restart on 2, 3 or 5
 * before a person changed something.
 */
export const ExitCode = {
  /** Stopped on request (SIGTERM, SIGINT), or the command did what it was asked. */
  ok: 0,
  /** An unexpected error: a bug (the log has the stack trace). */
  bug: 1,
  /** A setting is wrong: missing, malformed, or refused by the service it is for. Fix the variable the line names. */
  config: 2,
  /** Something Tierlink needs is held by another program: DATA_DIR by another Tierlink, PORT by another server. */
  inUse: 3,
  /** Discord, Patreon or the database did not answer (DNS, refused connection, time-out). Restarting later may work. */
  unreachable: 4,
  /** The database or backup is from a newer Tierlink than this one. */
  newer: 5,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface ExplainedFailure {
  exitCode: ExitCodeValue;
  /** One line: what happened, the variable or the portal page, and the fix. */
  message: string;
}

export type ExplainContext = Partial<Pick<Config, 'databaseUrl' | 'dataDir' | 'port'>> & {
  discordApiBaseUrl?: string;
  patreonBaseUrl?: string;
};

/** Error codes that mean "nobody answered there": DNS, refused, reset, unreachable, timed out. */
const UNREACHABLE = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_SOCKET',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The first system error code (`ENOTFOUND`, `ECONNREFUSED`, …) in an error, its causes or an AggregateError's errors. */
export function systemErrorCode(error: unknown, depth = 0): string | null {
  if (!error || typeof error !== 'object' || depth > 5) return null;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    /^(E[A-Z0-9_]+|UND_ERR_[A-Z_]+|ERR_[A-Z_]+|[A-Z_]+CERT[A-Z_]*)$/.test(code) &&
    code !== 'ERR_INVALID_ARG_TYPE'
  )
    return code;
  for (const inner of [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])]) {
    const found = systemErrorCode(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

const isUnreachable = (error: unknown): string | null => {
  const code = systemErrorCode(error);
  if (code && UNREACHABLE.has(code)) return code;
  const message = error instanceof Error ? error.message : '';
  // node-postgres' own connect timeout, and an aborted request (@discordjs/rest, fetch): no code.
  if (/timeout expired|connection timeout|Connection terminated unexpectedly/i.test(message)) return 'timeout';
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return 'timeout';
  return null;
};

/** `host:port/name` of a PostgreSQL URL, never its password. */
function describePostgres(url: string | undefined): { where: string; database: string } {
  try {
    const u = new URL(url ?? '');
    return { where: `${u.hostname}:${u.port || '5432'}`, database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres' };
  } catch {
    return { where: 'the DATABASE_URL address', database: '(the one named in DATABASE_URL)' };
  }
}

const PORTAL_BOT = 'Discord Developer Portal → your application → Bot';

function explainDiscord(error: unknown, context: ExplainContext): ExplainedFailure | null {
  const api = context.discordApiBaseUrl ?? 'https://discord.com/api';
  if (error instanceof DiscordAPIError) {
    if (error.status === 401) {
      return {
        exitCode: ExitCode.config,
        message: `DISCORD_TOKEN was refused by Discord (401 Unauthorized): open the ${PORTAL_BOT}, press Reset Token, and set DISCORD_TOKEN to the new token.`,
      };
    }
    if ((error.status === 403 || error.status === 404) && /\/applications\/\d+\/(guilds\/\d+\/)?commands/.test(error.url)) {
      return {
        exitCode: ExitCode.config,
        message:
          `Discord refused to register the slash commands (${error.status} ${error.message}): DISCORD_APPLICATION_ID must be the Application ID of DISCORD_TOKEN's bot ` +
          '(Discord Developer Portal → your application → General Information), and with DISCORD_GUILD_ID the bot must be in that server ' +
          '(invite it with Developer Portal → OAuth2 → URL Generator, scopes bot and applications.commands).',
      };
    }
    return null;
  }
  const message = error instanceof Error ? error.message : '';
  if (/disallowed intent/i.test(message)) {
    return {
      exitCode: ExitCode.config,
      message: `Discord refused the gateway session: the Server Members Intent is off (close code 4014). Turn on Server Members Intent in the ${PORTAL_BOT} → Privileged Gateway Intents, then start Tierlink again.`,
    };
  }
  if (/authentication failed|invalid token/i.test(message)) {
    return {
      exitCode: ExitCode.config,
      message: `DISCORD_TOKEN was refused by Discord's gateway (close code 4004): open the ${PORTAL_BOT}, press Reset Token, and set DISCORD_TOKEN to the new token.`,
    };
  }
  const unreachable = isUnreachable(error);
  if (unreachable) {
    return {
      exitCode: ExitCode.unreachable,
      message: `Discord did not answer at ${api} (${unreachable}): check this machine's internet connection and DNS (and DISCORD_API_BASE_URL, if you set it); Tierlink stops so that its supervisor starts it again.`,
    };
  }
  return null;
}

function explainDatabase(error: unknown, context: ExplainContext): ExplainedFailure | null {
  if (error instanceof DataDirLockedError) return { exitCode: ExitCode.inUse, message: error.message };
  if (error instanceof DatabaseNewerError) return { exitCode: ExitCode.newer, message: error.message };
  const sqlState = (error as { code?: unknown; severity?: unknown } | null)?.code;
  const isServerError =
    typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState) && typeof (error as { severity?: unknown }).severity === 'string';
  if (context.databaseUrl) {
    const { where, database } = describePostgres(context.databaseUrl);
    if (isServerError && (sqlState === '28P01' || sqlState === '28000')) {
      return {
        exitCode: ExitCode.config,
        message: `DATABASE_URL: PostgreSQL at ${where} refused the user name or password (${sqlState}): correct them in DATABASE_URL (postgres://user:password@host:port/database).`,
      };
    }
    if (isServerError && sqlState === '3D000') {
      return {
        exitCode: ExitCode.config,
        message: `DATABASE_URL: PostgreSQL at ${where} has no database "${database}" (3D000): create it (createdb ${database}) or correct the name in DATABASE_URL.`,
      };
    }
    if (isServerError && sqlState === '42501') {
      return {
        exitCode: ExitCode.config,
        message: `DATABASE_URL: the PostgreSQL user may not create Tierlink's tables in "${database}" (42501): use the database's owner, or grant it CREATE on the database and on schema public.`,
      };
    }
    if (isServerError && (sqlState === '53300' || sqlState === '57P03')) {
      return {
        exitCode: ExitCode.unreachable,
        message: `DATABASE_URL: PostgreSQL at ${where} accepts no connection now (${sqlState}: ${(error as Error).message}); Tierlink stops so that its supervisor starts it again.`,
      };
    }
    const unreachable = isUnreachable(error);
    if (unreachable) {
      return {
        exitCode: ExitCode.unreachable,
        message: `DATABASE_URL: PostgreSQL at ${where} does not answer (${unreachable}): start PostgreSQL, or correct the host and port in DATABASE_URL; Tierlink stops so that its supervisor starts it again.`,
      };
    }
    return null;
  }
  const code = systemErrorCode(error);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return {
      exitCode: ExitCode.config,
      message: `DATA_DIR ${context.dataDir ?? ''}: this user may not write there (${code}): give Tierlink's user the folder (chown), or set DATA_DIR to a folder it owns.`,
    };
  }
  if (code === 'ENOSPC') {
    return {
      exitCode: ExitCode.unreachable,
      message: `DATA_DIR ${context.dataDir ?? ''}: the disk is full (ENOSPC): free some space; Tierlink stops so that its supervisor starts it again.`,
    };
  }
  return null;
}

function explainWeb(error: unknown, context: ExplainContext): ExplainedFailure | null {
  const code = systemErrorCode(error);
  const port = context.port ?? (error as { port?: number }).port;
  if (code === 'EADDRINUSE') {
    return {
      exitCode: ExitCode.inUse,
      message: `PORT ${port} is in use by another program (EADDRINUSE): stop that program (another Tierlink?) or set PORT to a free port, and point your reverse proxy at it.`,
    };
  }
  if (code === 'EACCES') {
    return {
      exitCode: ExitCode.config,
      message: `PORT ${port} needs administrator rights on this system (EACCES): set PORT above 1023 (e.g. 3000) and let the reverse proxy or Caddy listen on 80 and 443.`,
    };
  }
  return null;
}

function explainPatreon(error: unknown, context: ExplainContext): ExplainedFailure | null {
  const base = context.patreonBaseUrl ?? 'https://www.patreon.com';
  if (error instanceof PatreonApiError) {
    if (error.oauthError === 'invalid_client') {
      return {
        exitCode: ExitCode.config,
        message: `PATREON_CLIENT_ID or PATREON_CLIENT_SECRET was refused by Patreon (invalid_client): copy both again from Patreon's portal → My Clients → your client.`,
      };
    }
    if (['unauthorized', 'refresh_failed', 'refresh_cooldown'].includes(error.kind) || error.oauthError === 'invalid_grant') {
      return {
        exitCode: ExitCode.config,
        message:
          `PATREON_CREATOR_ACCESS_TOKEN was refused by Patreon (${error.oauthError ?? error.status ?? error.kind}): ` +
          "copy the Creator's Access Token and Creator's Refresh Token again from Patreon's portal → My Clients → your client into PATREON_CREATOR_ACCESS_TOKEN and PATREON_CREATOR_REFRESH_TOKEN, or remove both and run /connect.",
      };
    }
    if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'server') {
      return {
        exitCode: ExitCode.unreachable,
        message: `Patreon did not answer at ${base} (${systemErrorCode(error) ?? error.kind}): check this machine's internet connection and DNS (and PATREON_BASE_URL, if you set it); Tierlink retries.`,
      };
    }
    return null;
  }
  const unreachable = isUnreachable(error);
  if (unreachable) {
    return {
      exitCode: ExitCode.unreachable,
      message: `Patreon did not answer at ${base} (${unreachable}): check this machine's internet connection and DNS (and PATREON_BASE_URL, if you set it); Tierlink retries.`,
    };
  }
  return null;
}

const BY_STEP: Record<StartupStep, (error: unknown, context: ExplainContext) => ExplainedFailure | null> = {
  database: explainDatabase,
  web: explainWeb,
  discord: explainDiscord,
  patreon: explainPatreon,
};

/**
 * One line for a failure the operator can fix (a refused token, a missing intent, a port in use,
 * a database that does not answer), naming the variable or the portal page and what to do, with
 * the exit code a supervisor reads; null for anything else, which is a bug and keeps its stack.
 */
export function explainFailure(error: unknown, context: ExplainContext = {}, step?: StartupStep): ExplainedFailure | null {
  if (error instanceof StartupStepError) return explainFailure(error.cause, context, error.step);
  if (error instanceof DataDirLockedError || error instanceof DatabaseNewerError) return explainDatabase(error, context);
  if (error instanceof RestoreRefusedError)
    return { exitCode: error.reason === 'newer' ? ExitCode.newer : ExitCode.config, message: error.message };
  if (error instanceof BackupFileError) return { exitCode: ExitCode.config, message: error.message };
  if (error instanceof RunningServiceError) return { exitCode: ExitCode.inUse, message: error.message };
  if (step) return BY_STEP[step](error, context);
  if (error instanceof DiscordAPIError) return explainDiscord(error, context);
  if (error instanceof PatreonApiError) return explainPatreon(error, context);
  return null;
}

/** The context of {@link explainFailure} from the configuration. */
export function explainContext(config: Partial<Pick<Config, 'databaseUrl' | 'dataDir' | 'port' | 'discord' | 'patreon'>>): ExplainContext {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.port,
    discordApiBaseUrl: config.discord?.apiBaseUrl,
    patreonBaseUrl: config.patreon?.baseUrl,
  };
}
