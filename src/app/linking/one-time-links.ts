import { createHash, randomBytes } from 'node:crypto';
import type { LinkTokenRepository, LinkTokenRow } from '../../edges/store/repositories/link-token-repository';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import type { SecretBox } from '../../edges/store/secret-box';

export const LINK_LIFETIME_MS = 15 * MINUTE;
/** How long the service's consent page may take once the link was followed. */
export const STATE_LIFETIME_MS = 15 * MINUTE;

export type LinkPurpose = 'link' | 'connect';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The one-time links of `/link` and `/connect`, and the OAuth `state` that carries them through the
 * service's consent page.
 *
 * A link token is 128 random bits, stored only as its SHA-256, bound to a Discord user and guild,
 * valid 15 minutes, single use. Following it mints a state `<token hash>.<nonce>.<signature>`: the
 * signature (HMAC keyed from SECRET_KEY) rejects a forged state before any database read, and the
 * nonce, stored hashed on the token's row, is consumed once, so a replayed callback finds nothing.
 */
export function createOneTimeLinks(deps: { repo: LinkTokenRepository; box: SecretBox; clock: Clock; publicUrl: () => string }) {
  const { repo, box, clock } = deps;
  return {
    /** Creates a link for a Discord user in a guild; returns its URL. */
    async create(purpose: LinkPurpose, discordUserId: string, guildId: string): Promise<{ url: string; expiresAt: Date }> {
      const token = randomBytes(16).toString('base64url');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
      await repo.create({ tokenHash: sha256(token), purpose, discordUserId, guildId, createdAt: now, expiresAt });
      return { url: `${deps.publicUrl()}/${purpose}/${token}`, expiresAt };
    },

    /** Uses a link: returns the row and the OAuth state to send, or null when unknown, used or expired. */
    async follow(purpose: LinkPurpose, token: string): Promise<{ row: LinkTokenRow; state: string } | null> {
      if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return null;
      const tokenHash = sha256(token);
      const nonce = randomBytes(16).toString('base64url');
      // A /connect link opened at /link/… (or the reverse) is refused and stays usable.
      const row = await repo.use(purpose, tokenHash, sha256(nonce), clock.now());
      if (!row) return null;
      const unsigned = `${tokenHash}.${nonce}`;
      return { row, state: `${unsigned}.${box.sign(`state:${unsigned}`)}` };
    },

    /** Consumes a state from the callback: the link's row, or null when forged, replayed or stale. */
    async consumeState(state: string | undefined): Promise<LinkTokenRow | null> {
      if (!state) return null;
      const [tokenHash, nonce, signature] = state.split('.');
      if (!tokenHash || !nonce || !signature || !box.verify(`state:${tokenHash}.${nonce}`, signature)) return null;
      const now = clock.now();
      return repo.consumeState(tokenHash, sha256(nonce), new Date(now.getTime() - STATE_LIFETIME_MS), now);
    },
  };
}

export type OneTimeLinks = ReturnType<typeof createOneTimeLinks>;
