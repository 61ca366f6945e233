/**
 * Discord's JSON error answers (Discord's docs, Opcodes and Status Codes; docs/tech-facts.md §1).
 * Route handlers throw these; the server turns them into `{ code, message, errors? }` bodies.
 */
export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DiscordApiError';
  }

  body(): Record<string, unknown> {
    return this.errors ? { message: this.message, code: this.code, errors: this.errors } : { message: this.message, code: this.code };
  }
}

export const ApiErrors = {
  unauthorized: () => new DiscordApiError(401, 0, '401: Unauthorized'),
  notFound: () => new DiscordApiError(404, 0, '404: Not Found'),
  methodNotAllowed: () => new DiscordApiError(405, 0, '405: Method Not Allowed'),
  unknownChannel: () => new DiscordApiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => new DiscordApiError(404, 10004, 'Unknown Guild'),
  unknownMember: () => new DiscordApiError(404, 10007, 'Unknown Member'),
  unknownMessage: () => new DiscordApiError(404, 10008, 'Unknown Message'),
  unknownRole: () => new DiscordApiError(404, 10011, 'Unknown Role'),
  unknownUser: () => new DiscordApiError(404, 10013, 'Unknown User'),
  unknownWebhook: () => new DiscordApiError(404, 10015, 'Unknown Webhook'),
  unknownBan: () => new DiscordApiError(404, 10026, 'Unknown Ban'),
  unknownInteraction: () => new DiscordApiError(404, 10062, 'Unknown interaction'),
  /** The user joining is in as many servers as Discord allows (100, 200 with Nitro). */
  maxGuildsReached: (limit: number) => new DiscordApiError(400, 30001, `Maximum number of guilds reached (${limit})`),
  maxMembersReached: () => new DiscordApiError(400, 30019, 'Maximum number of server members reached'),
  userBanned: () => new DiscordApiError(403, 40007, 'The user is banned from this guild.'),
  alreadyAcknowledged: () => new DiscordApiError(400, 40060, 'Interaction has already been acknowledged.'),
  missingAccess: () => new DiscordApiError(403, 50001, 'Missing Access'),
  emptyMessage: () => new DiscordApiError(400, 50006, 'Cannot send an empty message'),
  /** The user does not take direct messages from this bot (closed DMs, no shared server, a block). */
  cannotMessageUser: () => new DiscordApiError(403, 50007, 'Cannot send messages to this user'),
  nonTextChannel: () => new DiscordApiError(400, 50008, 'Cannot send messages in a non-text channel'),
  missingPermissions: () => new DiscordApiError(403, 50013, 'Missing Permissions'),
  /** Bad, expired or revoked user token, one without `guilds.join`, of another user or another application. */
  invalidRecipients: () => new DiscordApiError(400, 50033, 'Invalid Recipient(s)'),
  invalidOAuthToken: () => new DiscordApiError(403, 50025, 'Invalid OAuth2 access token'),
  invalidWebhookToken: () => new DiscordApiError(401, 50027, 'Invalid Webhook Token'),
  invalidJson: () => new DiscordApiError(400, 50109, 'The request body contains invalid JSON.'),
  /**
   * 50035 with Discord's nested `errors` shape; `path` is dotted (`0.options.1.name`) and becomes
   * `{ 0: { options: { 1: { name: { _errors: [{ code, message }] } } } } }`.
   */
  invalidFormBody: (path: string, code: string, message: string) => {
    let errors: Record<string, unknown> = { _errors: [{ code, message }] };
    for (const key of path.split('.').reverse()) errors = { [key]: errors };
    return new DiscordApiError(400, 50035, 'Invalid Form Body', errors);
  },
} as const;
