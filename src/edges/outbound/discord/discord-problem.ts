import { DiscordAPIError } from '@discordjs/rest';

/** Discord JSON error codes Tierlink expects (Discord's docs, Opcodes and Status Codes; docs/tech-facts.md §1). */
export const DiscordErrorCode = {
  UnknownGuild: 10004,
  UnknownMember: 10007,
  UnknownUser: 10013,
  UnknownRole: 10011,
  MissingAccess: 50001,
  MissingPermissions: 50013,
} as const;

export type DiscordProblemCode =
  'unknown_guild' | 'unknown_member' | 'unknown_role' | 'missing_access' | 'missing_permissions' | 'members_intent_disabled';

/** A failure Discord answered that we know how to explain. */
export interface DiscordProblem {
  code: DiscordProblemCode;
  message: string;
  fix: string;
  /** Discord's JSON error code. */
  discordCode: number;
  status: number;
}

/**
 * A failure Discord answered that we know how to explain, thrown where a caller cannot go on (the
 * directory). Like the service client's `PatreonApiError`, it carries a `kind` (also as `code`),
 * the HTTP status and Discord's JSON code, and its `name` reads `DiscordProblemError[50013]`.
 */
export class DiscordProblemError extends Error {
  readonly kind: DiscordProblemCode;
  readonly status: number;
  readonly discordCode: number;

  constructor(readonly problem: DiscordProblem) {
    super(problem.message);
    this.kind = problem.code;
    this.status = problem.status;
    this.discordCode = problem.discordCode;
    this.name = `DiscordProblemError[${problem.discordCode}]`;
  }

  /** The house rule's error `code`: the same as {@link kind}. */
  get code(): DiscordProblemCode {
    return this.kind;
  }
}

export function discordErrorCode(error: unknown): number | undefined {
  return error instanceof DiscordAPIError && typeof error.code === 'number' ? error.code : undefined;
}

export function membersIntentProblem(status: number): DiscordProblem {
  return {
    code: 'members_intent_disabled',
    message: 'Discord refused to list the server members: the Server Members Intent is off for this bot.',
    fix: 'Turn on "Server Members Intent" in the Discord Developer Portal → your application → Bot → Privileged Gateway Intents, then restart Tierlink.',
    discordCode: DiscordErrorCode.MissingAccess,
    status,
  };
}

/** Explains the known codes; returns undefined for anything else (callers rethrow those). */
export function explainDiscordError(error: unknown): DiscordProblem | undefined {
  if (!(error instanceof DiscordAPIError)) return undefined;
  const status = error.status;
  switch (error.code) {
    case DiscordErrorCode.UnknownGuild:
      return {
        code: 'unknown_guild',
        message: 'Discord does not know this server (it was deleted, or the bot was removed from it).',
        fix: 'Invite the bot to the server again, or remove the server from Tierlink.',
        discordCode: DiscordErrorCode.UnknownGuild,
        status,
      };
    case DiscordErrorCode.UnknownMember:
      return {
        code: 'unknown_member',
        message: 'That user is not a member of the server (they left or were never in it).',
        fix: 'Nothing to do: roles are granted again when the user rejoins.',
        discordCode: DiscordErrorCode.UnknownMember,
        status,
      };
    case DiscordErrorCode.UnknownRole:
      return {
        code: 'unknown_role',
        message: 'The role no longer exists in the server.',
        fix: 'Map the tier to an existing role (the old one was deleted).',
        discordCode: DiscordErrorCode.UnknownRole,
        status,
      };
    case DiscordErrorCode.MissingAccess:
      return {
        code: 'missing_access',
        message: 'Discord denied the bot access to this server.',
        fix: 'Check that the bot is still in the server and was invited with the "bot" and "applications.commands" scopes.',
        discordCode: DiscordErrorCode.MissingAccess,
        status,
      };
    case DiscordErrorCode.MissingPermissions:
      return {
        code: 'missing_permissions',
        message:
          "Discord refused: the bot lacks permission for this role (Manage Roles, or the role is at or above the bot's highest role).",
        fix: "Give the bot's role Manage Roles and move it above every role Tierlink grants, in Server Settings → Roles.",
        discordCode: DiscordErrorCode.MissingPermissions,
        status,
      };
    default:
      return undefined;
  }
}
