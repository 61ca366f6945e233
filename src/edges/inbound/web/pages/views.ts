import type { Pricing } from '../../../../core/i18n/price';
/**
 * What each page shows, as plain data. Services build these; the renderers in this folder turn
 * them into complete HTML documents (no external assets: the pages work offline).
 */

/** A role and why the patron has it (or does not). */
export interface RoleLine {
  name: string;
  reason: string;
}

/** Something the server's owner must fix before a role can be granted. */
export interface ProblemLine {
  name: string;
  problem: string;
  fix: string;
}

export type Standing = 'active' | 'grace' | 'lapsed' | 'former' | 'follower' | 'none';

/** The page a patron sees after authorizing from `/link`. */
export interface LinkResultView {
  campaignName: string;
  guildName: string | null;
  /** The patron's name on the membership service. */
  patronName: string;
  /**
   * The Discord account that now holds the membership, as Discord shows it: `name` is the display
   * name (or the username, or the id when Discord could not be asked), `username` the @handle.
   */
  discordAccount: { name: string; username: string | null };
  standing: Standing;
  /** One sentence: "Active patron", "Payment declined on 2026-11-02; roles kept until 2026-11-09". */
  standingText: string;
  /** Titles of the tiers they are entitled to now. */
  tiers: string[];
  /** Roles granted by this link. */
  granted: RoleLine[];
  /** Roles they already had and keep. */
  kept: RoleLine[];
  /** Roles taken away by this link (e.g. a lapsed pledge). */
  removed: RoleLine[];
  /** Mapped roles they do not get, and why. */
  notGranted: RoleLine[];
  /** Roles the bot could not grant because of the server's setup (the creator's to fix). */
  problems: ProblemLine[];
  /** False when they are not in the Discord server (roles come when they join). */
  inGuild: boolean;
  /** In the server but not yet through its Membership Screening: roles come when they accept its rules. */
  pending?: boolean;
  /** Where to pledge, for someone who is not (or no longer) a patron. */
  pledgeUrl: string | null;
  /** This service account was linked to another Discord account, whose roles moved here. */
  movedFromAnotherAccount: boolean;
  /** The last day of the grace period, for a payment that failed; absent otherwise. */
  graceEndsAt?: Date | null;
}

export interface ConnectTierLine {
  title: string;
  amountCents: number;
  /** The campaign's currency and how often its patrons pay: the price is written as the campaign states it. */
  pricing?: Pricing;
  patronCount: number | null;
  roles: string[];
}

/** The page a creator sees after `/connect`. */
export interface ConnectResultView {
  campaignName: string;
  guildName: string | null;
  tiers: ConnectTierLine[];
  webhook: { state: 'registered' | 'already-registered' | 'manual-secret' | 'failed'; detail: string | null };
  /** What a sync would do now (nothing is applied by /connect). */
  dryRun: { linkedMembers: number; adds: number; removes: number; held: boolean };
  /** Things to fix (roles above the bot, tiers without a role…), each with its fix. */
  problems: ProblemLine[];
}

/** When the creator has several campaigns and PATREON_CAMPAIGN_ID does not choose. */
export interface ChooseCampaignView {
  creatorName: string;
  guildName: string | null;
  /** Where each choice is posted (a form, never a link: a choice acts once, from this page). */
  action: string;
  /** The form token tied to this browser's flow cookie. */
  csrf: string;
  /** `ticket`: what the choice's form posts; it works once. */
  choices: Array<{ name: string; url: string | null; patronCount: number | null; ticket: string }>;
}

/** A page with one message: an expired link, denied consent, a bad state, an outage. */
export interface MessageView {
  status: number;
  tone: 'info' | 'warning' | 'error';
  title: string;
  message: string;
  /** What to do next, e.g. "Run /link again in Discord." */
  next: string | null;
}

/** A tier that lets a patron in through the join page, with the roles it gives. */
export interface JoinTierLine {
  title: string;
  /** As the campaign states it, in the reader's language: "$10 a month", "5 € pro Werk". */
  price: string;
  roles: string[];
}

/** The public join page of a server (`GET /join/<slug>`). */
export interface JoinPageView {
  campaignName: string;
  guildName: string | null;
  tiers: JoinTierLine[];
  /** Anyone with a Patreon account may join (`/settings join_non_patrons:true`). */
  openToEveryone: boolean;
  /** Where the one button goes; null when the page cannot add anyone now (`notReady` says why). */
  startHref: string | null;
  notReady: { title: string; message: string; next: string } | null;
  pledgeUrl: string | null;
}

/** The page after joining: the Discord account, the roles, the way into the server. */
export interface JoinResultView {
  /** `pending`: in the server behind its Membership Screening; the roles (`waiting`) come when they accept its rules. */
  outcome: 'added' | 'already_member' | 'pending';
  campaignName: string;
  guildName: string | null;
  discordAccount: { name: string; username: string | null };
  /** `https://discord.com/channels/<guild id>`. */
  serverUrl: string;
  tiers: string[];
  granted: RoleLine[];
  kept: RoleLine[];
  notGranted: RoleLine[];
  /** Roles that come when they accept the server's rules (`pending`). */
  waiting: RoleLine[];
  problems: ProblemLine[];
  /** The server's join page, to start again as someone else. */
  joinUrl: string;
}

/** A join page flow that ends without joining: why, what to do, and (for non-patrons) which tiers let people in. */
export interface JoinRefusalView extends MessageView {
  campaignName: string | null;
  guildName: string | null;
  /** A button for the next step (the pledge page, the join page again). */
  action: { label: string; href: string } | null;
  /** Shown to someone who is not a patron: the tiers that let people in. */
  tiers: JoinTierLine[];
  /** Where to start again. */
  joinUrl: string | null;
}
