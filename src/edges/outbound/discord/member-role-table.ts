/**
 * Each member's role ids in one guild, in typed arrays: a user id is a 64-bit snowflake kept as two
 * 32-bit halves in an open-addressing table, and what the member holds is the number of an
 * interned role set (members of a guild share few distinct combinations of roles). A member costs
 * 20 bytes per slot (key halves, set number, stamp) instead of a discord.js member object.
 *
 * Every write stamps the entry with the table's next generation, so a reader can tell whether an
 * entry changed after a moment it remembers ({@link MemberRoleTable.generation}).
 */

/** A slot's set number when the slot is empty. */
const EMPTY = 0;
/** The set number of a user known not to be a member. */
const ABSENT = 1;
/** The set number of a member who has not passed the server's Membership Screening yet. */
const PENDING = 2;
const FIRST_SET = 3;
const MAX_LOAD = 0.8;

const TWO_16 = 65_536;
const TWO_32 = 4_294_967_296;

/**
 * A snowflake's halves, or null for a string that is not one (never cached). Exact arithmetic on
 * doubles, without BigInt (three times faster): every intermediate stays below 2^53.
 */
export function snowflakeHalves(id: string): [hi: number, lo: number] | null {
  if (id.length === 0 || id.length > 20 || !/^[0-9]+$/.test(id)) return null;
  const split = Math.max(0, id.length - 9);
  const high = split === 0 ? 0 : Number(id.slice(0, split)); // < 10^11
  const low = Number(id.slice(split)); // < 10^9
  const a = Math.floor(high / TWO_16) * 1e9; // < 2^37 · 10^9 / 2^16 < 2^51
  const b = (high % TWO_16) * 1e9 + low; // < 2^46
  const c = (a % TWO_16) * TWO_16 + b; // < 2^47
  const hi = Math.floor(a / TWO_16) + Math.floor(c / TWO_32);
  const lo = c % TWO_32;
  if (hi >= TWO_32 || (hi === 0 && lo === 0)) return null;
  return [hi, lo];
}

function home(hi: number, lo: number, mask: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & mask;
}

/** What the table answers for a member still behind the server's Membership Screening. */
export const PENDING_MEMBER = 'pending';
export type PendingMember = typeof PENDING_MEMBER;

export class MemberRoleTable {
  private hi = new Uint32Array(16);
  private lo = new Uint32Array(16);
  private setOf = new Uint32Array(16);
  private stamps = new Float64Array(16);
  private count = 0;
  private gen = 0;
  /** Interned role sets: number → sorted role ids; key (ids joined) → number; references held by slots. */
  private readonly sets: Array<readonly string[] | null> = [null, null, null];
  private readonly setKeys: string[] = ['', '', ''];
  private readonly refs: number[] = [0, 0, 0];
  private readonly byKey = new Map<string, number>();
  private readonly free: number[] = [];

  /** Entries, members and known non-members together. */
  get size(): number {
    return this.count;
  }

  /** The stamp the last write got; an entry stamped above a remembered generation changed since. */
  get generation(): number {
    return this.gen;
  }

  /**
   * The member's role ids; null when known not to be a member; undefined when unknown;
   * {@link PENDING_MEMBER} for a member who has not passed the server's Membership Screening.
   */
  get(userId: string): readonly string[] | null | PendingMember | undefined {
    const slot = this.find(userId);
    if (slot < 0) return undefined;
    const set = this.setOf[slot]!;
    return set === ABSENT ? null : set === PENDING ? PENDING_MEMBER : this.sets[set]!;
  }

  /** The stamp of the user's entry; 0 when there is none. */
  stampOf(userId: string): number {
    const slot = this.find(userId);
    return slot < 0 ? 0 : this.stamps[slot]!;
  }

  has(userId: string): boolean {
    return this.find(userId) >= 0;
  }

  /**
   * Records what the user holds (null: not a member). Answers false only for a user id that is
   * not a snowflake, which is never cached.
   */
  set(userId: string, roleIds: readonly string[] | null | PendingMember): boolean {
    const halves = snowflakeHalves(userId);
    if (!halves) return false;
    const set = roleIds === null ? ABSENT : roleIds === PENDING_MEMBER ? PENDING : this.intern(roleIds);
    if (set >= FIRST_SET) this.refs[set]! += 1;
    let slot = this.slotFor(halves[0], halves[1]);
    if (this.setOf[slot] === EMPTY) {
      if (this.count + 1 > this.hi.length * MAX_LOAD) {
        this.grow();
        slot = this.slotFor(halves[0], halves[1]);
      }
      this.hi[slot] = halves[0];
      this.lo[slot] = halves[1];
      this.count += 1;
    } else {
      this.release(this.setOf[slot]!);
    }
    this.setOf[slot] = set;
    this.stamps[slot] = ++this.gen;
    return true;
  }

  /** Adds or removes one role of a known member; false when the user is unknown or not a member. */
  change(userId: string, roleId: string, op: 'add' | 'remove'): boolean {
    const current = this.get(userId);
    if (current === undefined || current === null || current === PENDING_MEMBER) return false;
    const next = op === 'add' ? (current.includes(roleId) ? current : [...current, roleId]) : current.filter((r) => r !== roleId);
    return this.set(userId, next);
  }

  delete(userId: string): boolean {
    const slot = this.find(userId);
    if (slot < 0) return false;
    this.removeSlot(slot);
    return true;
  }

  /** A deleted role leaves every member who held it (Discord sends no member update for that). */
  dropRole(roleId: string): void {
    const remap = new Map<number, number>();
    for (let set = FIRST_SET; set < this.sets.length; set++) {
      const roles = this.sets[set];
      if (roles?.includes(roleId)) remap.set(set, this.intern(roles.filter((r) => r !== roleId)));
    }
    if (remap.size === 0) return;
    for (let slot = 0; slot < this.setOf.length; slot++) {
      const to = remap.get(this.setOf[slot]!);
      if (to === undefined) continue;
      this.refs[to]! += 1;
      this.release(this.setOf[slot]!);
      this.setOf[slot] = to;
      this.stamps[slot] = ++this.gen;
    }
    for (const to of remap.values()) if (this.refs[to] === 0) this.release(to, 0);
  }

  /** Deletes the members (not the known non-members) whose entries were written at or before `stamp`. */
  sweep(stamp: number): number {
    // Collected first: deleting shifts entries backwards, across the end of the array too.
    const doomed: number[] = [];
    for (let slot = 0; slot < this.setOf.length; slot++) {
      const set = this.setOf[slot]!;
      if (set !== EMPTY && set !== ABSENT && this.stamps[slot]! <= stamp) doomed.push(this.hi[slot]!, this.lo[slot]!);
    }
    for (let i = 0; i < doomed.length; i += 2) {
      const slot = this.slotFor(doomed[i]!, doomed[i + 1]!);
      if (this.setOf[slot] !== EMPTY) this.removeSlot(slot);
    }
    return doomed.length / 2;
  }

  /** Bytes held: the typed arrays plus an estimate of the interned sets (V8's layout, 64-bit). */
  bytes(): number {
    let sets = 0;
    for (let set = FIRST_SET; set < this.sets.length; set++) {
      const roles = this.sets[set];
      if (roles) sets += 16 + 8 * roles.length + 2 * this.setKeys[set]!.length + 40 + 64;
    }
    return this.hi.byteLength + this.lo.byteLength + this.setOf.byteLength + this.stamps.byteLength + sets;
  }

  private find(userId: string): number {
    const halves = snowflakeHalves(userId);
    if (!halves) return -1;
    const slot = this.slotFor(halves[0], halves[1]);
    return this.setOf[slot] === EMPTY ? -1 : slot;
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private slotFor(hi: number, lo: number): number {
    const mask = this.hi.length - 1;
    let slot = home(hi, lo, mask);
    while (this.setOf[slot] !== EMPTY && (this.hi[slot] !== hi || this.lo[slot] !== lo)) slot = (slot + 1) & mask;
    return slot;
  }

  /** Linear probing's deletion by backward shift: no tombstones, so lookups never slow down. */
  private removeSlot(slot: number): void {
    const mask = this.hi.length - 1;
    this.release(this.setOf[slot]!);
    this.setOf[slot] = EMPTY;
    this.count -= 1;
    let hole = slot;
    let next = slot;
    for (;;) {
      next = (next + 1) & mask;
      if (this.setOf[next] === EMPTY) return;
      const want = home(this.hi[next]!, this.lo[next]!, mask);
      const stays = hole <= next ? hole < want && want <= next : hole < want || want <= next;
      if (stays) continue;
      this.hi[hole] = this.hi[next]!;
      this.lo[hole] = this.lo[next]!;
      this.setOf[hole] = this.setOf[next]!;
      this.stamps[hole] = this.stamps[next]!;
      this.setOf[next] = EMPTY;
      hole = next;
    }
  }

  private grow(): void {
    const { hi, lo, setOf, stamps } = this;
    const size = hi.length * 2;
    this.hi = new Uint32Array(size);
    this.lo = new Uint32Array(size);
    this.setOf = new Uint32Array(size);
    this.stamps = new Float64Array(size);
    for (let old = 0; old < hi.length; old++) {
      if (setOf[old] === EMPTY) continue;
      const slot = this.slotFor(hi[old]!, lo[old]!);
      this.hi[slot] = hi[old]!;
      this.lo[slot] = lo[old]!;
      this.setOf[slot] = setOf[old]!;
      this.stamps[slot] = stamps[old]!;
    }
  }

  private intern(roleIds: readonly string[]): number {
    // Most members hold no role or one: their key needs no sorting.
    const sorted = roleIds.length <= 1 ? roleIds : [...new Set(roleIds)].sort();
    const key = sorted.length === 1 ? sorted[0]! : sorted.join(',');
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const set = this.free.pop() ?? this.sets.length;
    this.sets[set] = Object.freeze([...sorted]);
    this.setKeys[set] = key;
    this.refs[set] = 0;
    this.byKey.set(key, set);
    return set;
  }

  /** Drops one reference to a set (`by` 0: none, just collect it if unused); an unused set is freed. */
  private release(set: number, by = 1): void {
    if (set < FIRST_SET) return;
    this.refs[set]! -= by;
    if (this.refs[set]! > 0) return;
    this.byKey.delete(this.setKeys[set]!);
    this.sets[set] = null;
    this.setKeys[set] = '';
    this.free.push(set);
  }
}
