/** Connection failures that end a request before any answer of Discord's: its socket was reset, or closed, or broke while written. */
const BEFORE_ANSWER = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Methods whose request sent twice does what it does once (a role added or removed, a message edited). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Wraps @discordjs/rest's `makeRequest` so that a connection lost before Discord answered is sent
 * again by @discordjs/rest, as its own rule intends.
 *
 * The ordinary cause is a kept-alive socket the other end closed a moment before it was reused:
 * the request never reached Discord. @discordjs/rest sends a request again only for an error that
 * is an `Error` of its own realm with the code `ECONNRESET`. It gives up on the rest:
 *
 * - undici reports the same lost socket as `UND_ERR_SOCKET` ("other side closed") or `EPIPE`
 *   when the close arrived first; those are sent again here when the method is idempotent (a role
 *   added twice is added once; a message posted twice is two messages, so a POST is not);
 * - an error Node's sockets raise is not an `instanceof Error` where the code runs in another
 *   realm (a vm context, as the tests' runner has), so even `ECONNRESET` was given up there.
 *
 * Either is re-thrown as an `Error` of this realm carrying `ECONNRESET`, the original as its
 * `cause`; @discordjs/rest then retries it within its `retries` (3).
 */
export function sendingAgainAfterLostConnections<I extends { method?: string }, R>(
  makeRequest: (url: string, init: I) => Promise<R>,
): (url: string, init: I) => Promise<R> {
  return async (url, init) => {
    try {
      return await makeRequest(url, init);
    } catch (error) {
      const code = codeOf(error);
      if (code === undefined || !BEFORE_ANSWER.has(code)) throw error;
      if (code !== 'ECONNRESET' && !IDEMPOTENT.has((init.method ?? 'GET').toUpperCase())) throw error;
      const message = (error as { message?: unknown }).message;
      throw Object.assign(
        new Error(`the connection to Discord was lost before an answer (${code}): ${String(message)}`, { cause: error }),
        {
          code: 'ECONNRESET',
        },
      );
    }
  };
}
