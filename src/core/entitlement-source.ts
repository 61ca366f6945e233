import type { MemberState } from './planner/types';

/**
 * The port every entitlement source plugs into (Patreon, comps, Ko-fi): what it can do, and the one
 * thing every source must do, give the planner its member states. Adapters live under
 * src/edges/outbound/<source>/ (or, for Tierlink's own comps, src/app/comps) and are registered once
 * in the composition root (src/compose.ts); the application plans from {@link MemberState}s only.
 */
export interface EntitlementSource {
  /** Stored with links, snapshots and grants: `patreon`, `comp`, `kofi`. Never changes. */
  readonly name: string;
  /** For people: "Patreon", "Ko-fi", "comp". */
  readonly label: string;
  readonly can: SourceAbilities;
  /**
   * The member states this source holds for these Discord users: through their links (`links`:
   * Discord user → this source's external id), or directly (a comp names the Discord user and its
   * server: `MemberState.guildId`). A user the source knows nothing of is absent from the answer.
   */
  statesFor(discordUserIds: readonly string[], links: ReadonlyMap<string, string>): Promise<Map<string, MemberState[]>>;
}

/**
 * What a source's service lets Tierlink do. Patreon: all four. Ko-fi: push only (a webhook per
 * payment; no list, no read, no sign-in for supporters). Comps: none (staff write them in Tierlink).
 */
export interface SourceAbilities {
  /** List every member (the nightly sync heals from it). */
  list: boolean;
  /** Read one member now (a delivery is confirmed by a read). */
  read: boolean;
  /** Push changes (webhooks). */
  push: boolean;
  /** Sign a person in, so `/link` proves who they are. */
  signIn: boolean;
}
