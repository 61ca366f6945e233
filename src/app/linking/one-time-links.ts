import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { LinkTokenRepository, LinkTokenRow } from '../../edges/outbound/store/repositories/link-token-repository';
import { pkcePair } from '../../edges/outbound/patreon/oauth';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import type { SecretBox } from '../../edges/outbound/store/secret-box';

export const LINK_LIFETIME_MS = 15 * MINUTE;
/** How long the service's consent page may take once the link was followed. */
export const STATE_LIFETIME_MS = 15 * MINUTE;
/** How long the campaign chooser of `/connect` can be acted on once the callback showed it. */
export const CHOICE_LIFETIME_MS = 30 * MINUTE;

/** `join`: a join page's flow (src/app/joining), which has no Discord user until its last step. */
export type LinkPurpose = 'link' | 'connect' | 'join';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The browser half of a flow: a random nonce the web edge keeps in a short-lived cookie named after
 * `flowId`. The state carries only the nonce's hash, so a state (or a consent page) sent to someone
 * else is worthless in their browser.
 */
export interface BrowserBinding {
  /** Names the flow's cookie: a prefix of the link's token hash (several flows may run at once). */
  flowId: string;
  nonce: string;
}

/** A flow whose state was consumed in the browser that started it. */
export interface BoundFlow {
  tokenHash: string;
  flowId: string;
  /** The hash of the browser's nonce. */
  binding: string;
}

/** Reads the nonce of a flow from the request's cookies. */
export type ReadNonce = (flowId: string) => string | undefined;

export type ConsumedState =
  | { kind: 'consumed'; row: LinkTokenRow; codeVerifier: string; flow: BoundFlow }
  /** A valid state in a browser that did not start the flow: refused, and the state is spent. */
  | { kind: 'unbound'; purpose: LinkPurpose; flowId: string; guildId: string }
  /**
   * Missing, forged, replayed or stale. `replayOf`: the state was ours (signed) and names a flow,
   * already spent or past its time, so the page can say which flow to start again.
   */
  | { kind: 'invalid'; replayOf?: { purpose: LinkPurpose; guildId: string } };

/** A join flow's Discord state, consumed in the browser that started the flow. */
export type ConsumedDiscordState =
  | { kind: 'consumed'; guildId: string; patreonUserId: string; flowId: string }
  | { kind: 'unbound'; guildId: string; flowId: string }
  | { kind: 'invalid'; guildId?: string };

export type RedeemedChoice =
  | { kind: 'chosen'; guildId: string; creatorUserId: string; campaignId: string; flowId: string; discordUserId: string | null }
  /** The ticket was already acted on once. */
  | { kind: 'used' }
  | { kind: 'expired' }
  /** Not a ticket of ours, or not for this browser. */
  | { kind: 'invalid' };

const flowIdOf = (tokenHash: string) => tokenHash.slice(0, 16);
/** A join flow not yet written anywhere but in its browser's cookie: sealed to its token hash. */
const pendingJoinSeal = (tokenHash: string) => ({ table: 'join-flow-cookie', column: 'pending', row: tokenHash });
/** A join flow's state names its guild after its nonce (`<nonce>~<guild id>`): the state is all there is of it until the consent comes back. */
const JOIN_NONCE = /^([A-Za-z0-9_-]{10,64})~(\d{1,20})$/;
/** The PKCE verifier is sealed to its own link_tokens row. */
const verifierSeal = (tokenHash: string) => ({ table: 'link_tokens', column: 'code_verifier', row: tokenHash });

export function createOneTimeLinks(deps: {
  repo: LinkTokenRepository;
  box: SecretBox;
  clock: Clock;
  publicUrl: () => string;
}): OneTimeLinks {
  const { repo, box, clock } = deps;

  /**
   * The service's callback of a join flow (see `begin`): in the browser that started it, within
   * {@link STATE_LIFETIME_MS}, the flow is written now, used and consumed at once, so a second
   * callback of the same state finds it spent. From another browser nothing is written.
   */
  async function consumeJoinState(
    tokenHash: string,
    nonce: string,
    guildId: string,
    binding: string,
    readNonce: ReadNonce,
  ): Promise<ConsumedState> {
    const flowId = flowIdOf(tokenHash);
    const replay = async (): Promise<ConsumedState> =>
      (await repo.find(tokenHash)) ? { kind: 'invalid', replayOf: { purpose: 'join', guildId } } : { kind: 'invalid' };
    const cookie = readNonce(flowId);
    if (cookie === undefined || !sameText(digest(cookie), binding)) {
      if (await repo.find(tokenHash)) return replay();
      return { kind: 'unbound', purpose: 'join', flowId, guildId };
    }
    let pending: string[];
    try {
      pending = box.decrypt(cookie, pendingJoinSeal(tokenHash)).split('.');
    } catch {
      return { kind: 'invalid' };
    }
    const [sealedGuild, codeVerifier, startedAt] = pending;
    const started = Number(startedAt);
    const now = clock.now();
    if (sealedGuild !== guildId || !codeVerifier || !Number.isSafeInteger(started)) return { kind: 'invalid' };
    // Past its time: the page says which flow to start again.
    if (started < now.getTime() - STATE_LIFETIME_MS) return { kind: 'invalid', replayOf: { purpose: 'join', guildId } };
    const row = await repo.createConsumedJoin({
      tokenHash,
      guildId,
      startedAt: new Date(started),
      expiresAt: new Date(started + LINK_LIFETIME_MS),
      stateNonceHash: sha256(nonce),
      now,
    });
    if (!row) return replay();
    return { kind: 'consumed', row, codeVerifier, flow: { tokenHash, flowId, binding } };
  }

  return {
    async create(purpose: 'link' | 'connect', discordUserId: string, guildId: string): Promise<{ url: string; expiresAt: Date }> {
      const token = randomBytes(16).toString('base64url');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
      await repo.create({ tokenHash: sha256(token), purpose, discordUserId, guildId, createdAt: now, expiresAt });
      return { url: `${deps.publicUrl()}/${purpose}/${token}`, expiresAt };
    },

    async isLive(purpose: 'link' | 'connect', token: string): Promise<boolean> {
      if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return false;
      return (await repo.findLive(purpose, sha256(token), clock.now())) !== null;
    },

    async wasUsed(purpose: 'link' | 'connect', token: string): Promise<boolean> {
      if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return false;
      const row = await repo.find(sha256(token));
      return row !== null && row.purpose === purpose && row.usedAt !== null;
    },

    async follow(
      purpose: LinkPurpose,
      token: string,
    ): Promise<{ row: LinkTokenRow; state: string; codeChallenge: string; browser: BrowserBinding } | null> {
      if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return null;
      const tokenHash = sha256(token);
      const nonce = randomBytes(16).toString('base64url');
      const browserNonce = randomBytes(32).toString('base64url');
      const pkce = pkcePair();
      // A /connect link opened at /link/… (or the reverse) is refused and stays usable.
      const row = await repo.use(
        purpose,
        tokenHash,
        { stateNonceHash: sha256(nonce), codeVerifier: box.encrypt(pkce.verifier, verifierSeal(tokenHash)) },
        clock.now(),
      );
      if (!row) return null;
      const unsigned = `${tokenHash}.${nonce}.${digest(browserNonce)}`;
      return {
        row,
        state: `${unsigned}.${box.sign(`state:${unsigned}`)}`,
        codeChallenge: pkce.challenge,
        browser: { flowId: flowIdOf(tokenHash), nonce: browserNonce },
      };
    },

    async begin(guildId: string): Promise<{ state: string; codeChallenge: string; browser: BrowserBinding }> {
      const tokenHash = sha256(randomBytes(16).toString('base64url'));
      const nonce = randomBytes(16).toString('base64url');
      const pkce = pkcePair();
      const cookie = box.encrypt(`${guildId}.${pkce.verifier}.${clock.now().getTime()}`, pendingJoinSeal(tokenHash));
      const unsigned = `${tokenHash}.${nonce}~${guildId}.${digest(cookie)}`;
      return {
        state: `${unsigned}.${box.sign(`state:${unsigned}`)}`,
        codeChallenge: pkce.challenge,
        browser: { flowId: flowIdOf(tokenHash), nonce: cookie },
      };
    },

    async consumeState(state: string | undefined, readNonce: ReadNonce): Promise<ConsumedState> {
      const [tokenHash, nonce, binding, signature, ...rest] = (state ?? '').split('.');
      if (!tokenHash || !nonce || !binding || !signature || rest.length > 0) return { kind: 'invalid' };
      if (!box.verify(`state:${tokenHash}.${nonce}.${binding}`, signature)) return { kind: 'invalid' };
      const now = clock.now();
      const join = JOIN_NONCE.exec(nonce);
      if (join) return consumeJoinState(tokenHash, nonce, join[2]!, binding, readNonce);
      const row = await repo.consumeState(tokenHash, sha256(nonce), new Date(now.getTime() - STATE_LIFETIME_MS), now);
      if (!row) {
        const spent = await repo.find(tokenHash);
        return spent ? { kind: 'invalid', replayOf: { purpose: spent.purpose, guildId: spent.guildId } } : { kind: 'invalid' };
      }
      const flowId = flowIdOf(tokenHash);
      const browserNonce = readNonce(flowId);
      if (browserNonce === undefined || !sameText(digest(browserNonce), binding)) {
        return { kind: 'unbound', purpose: row.purpose, flowId, guildId: row.guildId };
      }
      if (!row.codeVerifier) return { kind: 'invalid' };
      return {
        kind: 'consumed',
        row,
        codeVerifier: box.decrypt(row.codeVerifier, verifierSeal(tokenHash)),
        flow: { tokenHash, flowId, binding },
      };
    },

    async discordState(flow: BoundFlow, patreonUserId: string): Promise<string | null> {
      const nonce = randomBytes(16).toString('base64url');
      const row = await repo.startDiscordStep(flow.tokenHash, { externalId: patreonUserId, stateNonceHash: sha256(nonce) });
      if (!row) return null;
      const unsigned = `${flow.tokenHash}.${nonce}.${flow.binding}`;
      return `${unsigned}.${box.sign(`discord-state:${unsigned}`)}`;
    },

    async consumeDiscordState(state: string | undefined, readNonce: ReadNonce): Promise<ConsumedDiscordState> {
      const [tokenHash, nonce, binding, signature, ...rest] = (state ?? '').split('.');
      if (!tokenHash || !nonce || !binding || !signature || rest.length > 0) return { kind: 'invalid' };
      if (!box.verify(`discord-state:${tokenHash}.${nonce}.${binding}`, signature)) return { kind: 'invalid' };
      const now = clock.now();
      const row = await repo.consumeDiscordState(tokenHash, sha256(nonce), new Date(now.getTime() - STATE_LIFETIME_MS), now);
      if (!row) {
        const spent = await repo.find(tokenHash);
        return spent ? { kind: 'invalid', guildId: spent.guildId } : { kind: 'invalid' };
      }
      const flowId = flowIdOf(tokenHash);
      const browserNonce = readNonce(flowId);
      if (browserNonce === undefined || !sameText(digest(browserNonce), binding)) return { kind: 'unbound', guildId: row.guildId, flowId };
      if (!row.externalId) return { kind: 'invalid', guildId: row.guildId };
      return { kind: 'consumed', guildId: row.guildId, patreonUserId: row.externalId, flowId };
    },

    flowOf(stateOrTicket: string | undefined): string | null {
      const tokenHash = (stateOrTicket ?? '').split('.')[0] ?? '';
      return /^[0-9a-f]{64}$/.test(tokenHash) ? flowIdOf(tokenHash) : null;
    },

    choiceTicket(flow: BoundFlow, creatorUserId: string, campaignId: string): string {
      const expiry = clock.now().getTime() + CHOICE_LIFETIME_MS;
      const unsigned = `${flow.tokenHash}.${creatorUserId}.${campaignId}.${expiry}`;
      return `${unsigned}.${box.sign(`choose:${unsigned}.${flow.binding}`)}`;
    },

    choiceCsrf(flow: BoundFlow): string {
      return box.sign(`choose-csrf:${flow.tokenHash}.${flow.binding}`);
    },

    async redeemChoice(ticket: string | undefined, csrf: string | undefined, readNonce: ReadNonce): Promise<RedeemedChoice> {
      const parts = (ticket ?? '').split('.');
      if (parts.length !== 5 || !csrf) return { kind: 'invalid' };
      const [tokenHash, creatorUserId, campaignId, expiry, signature] = parts as [string, string, string, string, string];
      const flowId = flowIdOf(tokenHash);
      const browserNonce = readNonce(flowId);
      if (browserNonce === undefined) return { kind: 'invalid' };
      const binding = digest(browserNonce);
      if (!box.verify(`choose-csrf:${tokenHash}.${binding}`, csrf)) return { kind: 'invalid' };
      if (!box.verify(`choose:${tokenHash}.${creatorUserId}.${campaignId}.${expiry}.${binding}`, signature)) return { kind: 'invalid' };
      if (Number(expiry) < clock.now().getTime()) return { kind: 'expired' };
      const row = await repo.useChoice(tokenHash, clock.now());
      if (!row) return { kind: 'used' };
      return { kind: 'chosen', guildId: row.guildId, creatorUserId, campaignId, flowId, discordUserId: row.discordUserId };
    },
  };
}

/**
 * The one-time links of `/link` and `/connect`, and the OAuth `state` that carries them through the
 * service's consent page.
 *
 * A link token is 128 random bits, stored only as its SHA-256, bound to a Discord user and guild,
 * valid 15 minutes, single use. Following it mints a state `<token hash>.<nonce>.<browser hash>.<signature>`:
 * the signature (HMAC keyed from SECRET_KEY) rejects a forged state before any database read; the
 * nonce, stored hashed on the token's row, is consumed once, so a replayed callback finds nothing;
 * the browser hash binds the state to the browser that followed the link (its nonce cookie), so a
 * consent page forwarded to someone else links nothing (login CSRF). A PKCE verifier is kept,
 * sealed, on the row; only its challenge travels.
 */
export interface OneTimeLinks {
  /** Creates a link for a Discord user in a guild; returns its URL. */
  create(purpose: 'link' | 'connect', discordUserId: string, guildId: string): Promise<{ url: string; expiresAt: Date }>;
  /** Whether a link can still be followed (unknown, used and expired ones cannot), without using it. */
  isLive(purpose: 'link' | 'connect', token: string): Promise<boolean>;
  /** Whether a link that is not live was used already (its page says so) or expired, or never was ours. */
  wasUsed(purpose: 'link' | 'connect', token: string): Promise<boolean>;
  /**
   * Uses a link: the row, the OAuth state and PKCE challenge to send, and the browser binding the
   * web edge must set as a cookie; null when the link is unknown, used or expired.
   */
  follow(
    purpose: LinkPurpose,
    token: string,
  ): Promise<{ row: LinkTokenRow; state: string; codeChallenge: string; browser: BrowserBinding } | null>;
  /**
   * A join page's flow, for a guild and no Discord user yet: the same binding, state and PKCE as a
   * followed `/link`, but nothing is written until the service's consent comes back (anyone may
   * open a join page, as often as they like). Its guild, PKCE verifier and start time travel in
   * the flow's cookie, sealed, which is also the browser's binding; the state names the guild.
   */
  begin(guildId: string): Promise<{ state: string; codeChallenge: string; browser: BrowserBinding }>;
  /**
   * Consumes a state from the callback, in the browser whose cookies `readNonce` reads. A valid
   * state from another browser is spent all the same: the flow must start again from Discord.
   */
  consumeState(state: string | undefined, readNonce: ReadNonce): Promise<ConsumedState>;
  /**
   * The second state of a join flow, toward Discord's consent page, once the service said who the
   * patron is: `<token hash>.<nonce>.<browser hash>.<signature>` like the first (its own signing
   * label), bound to the same browser, consumed once. Null when the flow already took this step.
   */
  discordState(flow: BoundFlow, patreonUserId: string): Promise<string | null>;
  /**
   * Consumes a join flow's Discord state in the browser whose cookies `readNonce` reads, within
   * {@link STATE_LIFETIME_MS} of the service step. From another browser it is spent all the same.
   */
  consumeDiscordState(state: string | undefined, readNonce: ReadNonce): Promise<ConsumedDiscordState>;
  /** The flow a state or a chooser ticket belongs to (names its cookie); null for anything else. */
  flowOf(stateOrTicket: string | undefined): string | null;
  /**
   * A ticket for one campaign of the `/connect` chooser: `<token hash>.<creator>.<campaign>.<expiry>.<signature>`,
   * the signature covering the browser's binding too, so only the browser of the flow can use it.
   */
  choiceTicket(flow: BoundFlow, creatorUserId: string, campaignId: string): string;
  /** The chooser's form token: tied to the flow and to the browser's cookie (CSRF). */
  choiceCsrf(flow: BoundFlow): string;
  /** Acts on a chooser's ticket once, from the browser of the flow, with the form's token. */
  redeemChoice(ticket: string | undefined, csrf: string | undefined, readNonce: ReadNonce): Promise<RedeemedChoice>;
}
