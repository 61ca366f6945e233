import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may read the operator's surfaces (the detailed `/healthz`, `/metrics`; docs/contract.md):
 * a request from this machine, or one that carries the configured bearer token.
 */

/**
 * Headers a proxy adds on someone else's behalf (every `X-Forwarded-*`, RFC 7239 `Forwarded`, `Via`
 * and the vendors' own): any one of them means the request came through a proxy, whatever it names.
 */
const FORWARDING_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
]);

function isForwarded(req: IncomingMessage): boolean {
  return Object.keys(req.headers).some((name) => name.startsWith('x-forwarded-') || FORWARDING_HEADERS.has(name));
}

function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(a);
}

/** The Host a request was addressed to names this machine (or names nothing, as HTTP/1.0 may). */
function addressedToLoopback(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (host === undefined) return true;
  const name = host
    .trim()
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/**
 * A request from this machine that no proxy forwarded (docs/decisions.md §16). The socket's own
 * address decides, never `X-Forwarded-For` (which the sender writes), and it fails closed: a request
 * that carries any forwarding header at all (`X-Forwarded-Proto` alone included) is not local, even
 * from 127.0.0.1 and even from a proxy TRUST_PROXY trusts, because a reverse proxy on this machine
 * connects from there on behalf of everyone; nor is one addressed to another name than this
 * machine's (a proxy that passes the public Host on). Behind a proxy, use the token.
 */
export function isLocalRequest(req: IncomingMessage): boolean {
  if (!isLoopbackAddress(req.socket.remoteAddress ?? '')) return false;
  return !isForwarded(req) && addressedToLoopback(req);
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
