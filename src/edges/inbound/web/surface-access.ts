import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may read the operator's surfaces (the detailed `/healthz`, `/metrics`; docs/contract.md):
 * a request from this machine, or one that carries the configured bearer token.
 */

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-client-ip'] as const;

function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(a);
}

/**
 * A request from the loopback address that no proxy forwarded. The socket's own address decides,
 * never `X-Forwarded-For` (which the sender writes): and a request that carries any forwarding
 * header is not local even from 127.0.0.1, because a reverse proxy on this machine connects from
 * there on behalf of everyone. Behind such a proxy, use the token.
 */
export function isLocalRequest(req: IncomingMessage): boolean {
  if (!isLoopbackAddress(req.socket.remoteAddress ?? '')) return false;
  return FORWARDING_HEADERS.every((name) => req.headers[name] === undefined);
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** True when `Authorization: Bearer <token>` names `token` (compared in constant time); false without a token. */
export function hasBearer(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return false;
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(header.slice('Bearer '.length).trim()), digest(token));
}

/** Whether `req` may read a surface guarded by `token`. */
export function mayRead(req: IncomingMessage, token: string | undefined): boolean {
  return isLocalRequest(req) || hasBearer(req, token);
}
