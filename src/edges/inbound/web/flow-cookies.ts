import type { Request, Response } from 'express';
import type { BrowserBinding, ReadNonce } from '../../../app/linking/one-time-links';

/** Longest cookie header read: a browser's own limit is about 8 KiB; ours are tiny. */
const MAX_COOKIE_HEADER = 8192;

export function createFlowCookies(options: { secure: () => boolean }): FlowCookies {
  const name = (flowId: string) => `${options.secure() ? '__Host-' : ''}tierlink_flow_${flowId}`;
  const signInName = (flowId: string) => `${options.secure() ? '__Host-' : ''}tierlink_signin_${flowId}`;
  const attributes = (maxAgeMs: number) =>
    `Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}; HttpOnly; SameSite=Lax${options.secure() ? '; Secure' : ''}`;

  function cookies(req: Request): Map<string, string> {
    const header = req.headers.cookie;
    const out = new Map<string, string>();
    if (typeof header !== 'string' || header.length > MAX_COOKIE_HEADER) return out;
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
    }
    return out;
  }

  return {
    set(res: Response, binding: BrowserBinding, maxAgeMs: number): void {
      res.append('Set-Cookie', `${name(binding.flowId)}=${binding.nonce}; ${attributes(maxAgeMs)}`);
    },
    clear(res: Response, flowId: string): void {
      res.append('Set-Cookie', `${name(flowId)}=; ${attributes(0)}`);
    },
    setSignIn(res: Response, flowId: string, sealed: string, maxAgeMs: number): void {
      res.append('Set-Cookie', `${signInName(flowId)}=${sealed}; ${attributes(maxAgeMs)}`);
    },
    clearSignIn(res: Response, flowId: string): void {
      res.append('Set-Cookie', `${signInName(flowId)}=; ${attributes(0)}`);
    },
    readSignIn(req: Request, flowId: string): string | undefined {
      const value = cookies(req).get(signInName(flowId));
      return value && /^[A-Za-z0-9_.-]{1,4096}$/.test(value) ? value : undefined;
    },
    reader(req: Request): ReadNonce {
      const jar = cookies(req);
      return (flowId) => {
        const value = jar.get(name(flowId));
        // A nonce, or a join flow's sealed pending state (`v2.…`: src/app/linking/one-time-links.ts).
        return value && /^[A-Za-z0-9_.-]{1,512}$/.test(value) ? value : undefined;
      };
    },
  };
}

/**
 * The cookies that bind an OAuth flow to the browser that started it: one per flow (several may run
 * at once), named after the flow, holding its random nonce. HttpOnly (no script reads it), SameSite=Lax
 * (sent on the service's top-level redirect back to us, never on a cross-site POST), Secure with the
 * `__Host-` prefix when PUBLIC_URL is https, short-lived.
 */
export interface FlowCookies {
  set(res: Response, binding: BrowserBinding, maxAgeMs: number): void;
  clear(res: Response, flowId: string): void;
  /**
   * A Discord sign-in's sealed state (src/app/discord-sign-in.ts), named after its flow: the page
   * of a `/link` or `/connect` link keeps it until Discord answers.
   */
  setSignIn(res: Response, flowId: string, sealed: string, maxAgeMs: number): void;
  clearSignIn(res: Response, flowId: string): void;
  readSignIn(req: Request, flowId: string): string | undefined;
  /** The nonces of this request's flow cookies, by flow id. */
  reader(req: Request): ReadNonce;
}
