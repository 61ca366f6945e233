/**
 * The member-list cursor. Opaque to clients (spec: "page[cursor]"), but it must survive
 * deletions between pages, so it points after a member's insertion `seq` rather than at an offset.
 * `page` is the number of the page the cursor leads to; the repeat-cursor fault keys on it.
 */
export interface MemberCursor {
  campaignId: string;
  afterSeq: number;
  page: number;
  /** Makes a fresh cursor string for the same position (the "new cursor, same page" fault). */
  nonce?: number;
}

export function encodeCursor(cursor: MemberCursor): string {
  const raw: Record<string, string | number> = { c: cursor.campaignId, a: cursor.afterSeq, p: cursor.page };
  if (cursor.nonce !== undefined) raw.n = cursor.nonce;
  return Buffer.from(JSON.stringify(raw), 'utf8').toString('base64url');
}

export function decodeCursor(value: string): MemberCursor | null {
  try {
    const raw: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (typeof raw !== 'object' || raw === null) return null;
    const { c, a, p, n } = raw as Record<string, unknown>;
    if (typeof c !== 'string' || typeof a !== 'number' || typeof p !== 'number' || !Number.isInteger(a) || !Number.isInteger(p) || p < 2) {
      return null;
    }
    return n === undefined
      ? { campaignId: c, afterSeq: a, page: p }
      : typeof n === 'number'
        ? { campaignId: c, afterSeq: a, page: p, nonce: n }
        : null;
  } catch {
    return null;
  }
}
