import os from 'node:os';

/**
 * An address of this machine that is not loopback: a request a test sends to it arrives from that
 * address, as a request from another machine would (the server sees no 127.0.0.1).
 */
export function outsideAddress(): string {
  const all = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []);
  const v4 = all.find((a) => !a.internal && a.family === 'IPv4');
  if (v4) return v4.address;
  const v6 = all.find((a) => !a.internal && a.family === 'IPv6' && !a.address.startsWith('fe80'));
  if (v6) return `[${v6.address}]`;
  throw new Error('these tests need a network interface other than loopback (a request from "outside")');
}

/** `url` with its host replaced by {@link outsideAddress}. */
export function fromOutside(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${outsideAddress()}:${u.port}${u.pathname}${u.search}`;
}
