import type { EntitlementSource } from '../../core/entitlement-source';
import type { MemberState } from '../../core/planner/types';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';

/** What every source says of some Discord users. */
export interface UsersStates {
  /** By Discord user: every source's member states (a user no source knows is absent). */
  states: Map<string, MemberState[]>;
  /** The users linked on at least one source. */
  linked: Set<string>;
}

export interface GatherOptions {
  /** Plan as if the users had no links (`/unlink`): only the sources that name Discord users directly (comps) count. */
  ignoreLinks?: boolean;
  /** Links a dry run would make, by source (Discord user → external id): planned as if made. */
  pendingLinks?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/**
 * The one place the planner's member states are gathered from: the users' links (one statement),
 * then each registered source's states for them (one statement each). Every trigger (a webhook, a
 * link, a join, a sync page, a comp, a scheduled end) plans from this.
 */
export class MemberStates {
  readonly #sources: readonly EntitlementSource[];
  readonly #links: Pick<LinkRepository, 'linksOfUsers'>;

  constructor(sources: readonly EntitlementSource[], links: Pick<LinkRepository, 'linksOfUsers'>) {
    this.#sources = sources;
    this.#links = links;
  }

  /** The registered sources, in registration order. */
  get sources(): readonly EntitlementSource[] {
    return this.#sources;
  }

  /** The source registered under `name`, if any. */
  source(name: string): EntitlementSource | undefined {
    return this.#sources.find((s) => s.name === name);
  }

  /** Every source's states for these users (states that hold in one server only carry its `guildId`). */
  async forUsers(discordUserIds: readonly string[], options: GatherOptions = {}): Promise<UsersStates> {
    const links = options.ignoreLinks ? new Map<string, Map<string, string>>() : await this.#links.linksOfUsers(discordUserIds);
    for (const [source, pending] of options.pendingLinks ?? []) {
      let bySource = links.get(source);
      for (const [discordUserId, externalId] of pending) {
        if (!discordUserIds.includes(discordUserId)) continue;
        if (!bySource) links.set(source, (bySource = new Map()));
        if (!bySource.has(discordUserId)) bySource.set(discordUserId, externalId);
      }
    }
    const linked = new Set<string>();
    for (const bySource of links.values()) for (const discordUserId of bySource.keys()) linked.add(discordUserId);
    const states = new Map<string, MemberState[]>();
    const answers = await Promise.all(this.#sources.map((s) => s.statesFor(discordUserIds, links.get(s.name) ?? new Map())));
    for (const answer of answers) {
      for (const [discordUserId, list] of answer) states.set(discordUserId, [...(states.get(discordUserId) ?? []), ...list]);
    }
    return { states, linked };
  }

  async forUser(discordUserId: string, options: GatherOptions = {}): Promise<{ states: MemberState[]; linked: boolean }> {
    const { states, linked } = await this.forUsers([discordUserId], options);
    return { states: states.get(discordUserId) ?? [], linked: linked.has(discordUserId) };
  }
}
