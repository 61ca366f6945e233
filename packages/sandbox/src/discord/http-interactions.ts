import { randomBytes } from 'node:crypto';
import type { Clock } from '../support/clock';
import type { SigningKey } from './ed25519';
import type { SnowflakeFactory } from './snowflakes';
import { SandboxUsageError } from './state';

/** What the app's endpoint answered to one signed POST. */
export interface EndpointAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Discord's words when an Interactions Endpoint URL fails its checks on save. */
const NOT_VERIFIED = 'The specified interactions endpoint url could not be verified.';

/**
 * The application's Interactions Endpoint URL (docs/discord-api-notes.md §3): requests signed with the
 * application's Ed25519 key over `timestamp + raw body` (`X-Signature-Ed25519`, `X-Signature-Timestamp`,
 * the timestamp in seconds). A URL is kept only when it answers a signed PING with `200 {"type":1}` as
 * JSON and a request with a bad signature with 401, as Discord checks on save and at random later.
 */
export class InteractionsEndpoint {
  private current: string | null = null;

  constructor(
    private readonly key: SigningKey,
    private readonly clock: Clock,
    private readonly applicationId: string,
    private readonly nextId: SnowflakeFactory,
    /** How long an answer may take: Discord's 3 s by default. */
    readonly timeoutMs: number,
  ) {}

  get url(): string | null {
    return this.current;
  }

  /**
   * POSTs `body` to the endpoint, signed; a bad signature (a valid signature of other bytes) when
   * `forgeSignature`. Rejects on a network error, an abort, or no answer within `timeoutMs`.
   */
  async post(body: string, options: { forgeSignature?: boolean; signal?: AbortSignal; url?: string } = {}): Promise<EndpointAnswer> {
    const url = options.url ?? this.current;
    if (url === null) throw new SandboxUsageError('no interactions endpoint URL is set');
    const timestamp = String(Math.floor(this.clock.now().getTime() / 1000));
    const signed = options.forgeSignature ? `${timestamp}${body} ` : `${timestamp}${body}`;
    const signals = [AbortSignal.timeout(this.timeoutMs), ...(options.signal ? [options.signal] : [])];
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'Discord-Interactions/1.0 (+https://discord.com)',
        'X-Signature-Ed25519': this.key.sign(Buffer.from(signed, 'utf8')),
        'X-Signature-Timestamp': timestamp,
      },
      body,
      signal: AbortSignal.any(signals),
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  private ping(): string {
    return JSON.stringify({
      id: this.nextId(),
      application_id: this.applicationId,
      type: 1,
      token: `sandbox.ping.${randomBytes(24).toString('base64url')}`,
      version: 1,
      entitlements: [],
      authorizing_integration_owners: {},
    });
  }

  /** The checks Discord runs on a URL; null when it passes, else why not. */
  async verify(url: string): Promise<string | null> {
    try {
      const pong = await this.post(this.ping(), { url });
      if (pong.status !== 200) return `the signed PING was answered ${pong.status}, not 200`;
      if (!pong.contentType.startsWith('application/json')) return `the PONG's Content-Type is "${pong.contentType}", not application/json`;
      let parsed: unknown;
      try {
        parsed = JSON.parse(pong.text);
      } catch {
        return 'the PONG is not JSON';
      }
      if ((parsed as { type?: unknown } | null)?.type !== 1) return `the PONG is ${pong.text}, not {"type":1}`;
      const forged = await this.post(this.ping(), { url, forgeSignature: true });
      if (forged.status !== 401) return `a request with an invalid signature was answered ${forged.status}, not 401`;
      return null;
    } catch (error) {
      return `the endpoint did not answer: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** Sets the URL after the checks pass (null removes it); throws Discord's refusal with the reason otherwise. */
  async set(url: string | null): Promise<void> {
    if (url === null) {
      this.current = null;
      return;
    }
    const problem = await this.verify(url);
    if (problem !== null) throw new SandboxUsageError(`${NOT_VERIFIED} (${problem})`);
    this.current = url;
  }

  /** A routine check: a failing endpoint loses its URL, as on Discord. True when the URL stays. */
  async check(): Promise<boolean> {
    if (this.current === null) return false;
    const problem = await this.verify(this.current);
    if (problem !== null) this.current = null;
    return problem === null;
  }
}
