import { type T, translator } from '../../../../core/i18n';
import { channelNoteWords } from '../../../../core/post-source-text';
import { refusalWords } from '../../../../core/refusal-text';
import { compInputWords } from '../../../../core/comp-input-text';
import { settingsProblemWords } from '../../../../core/settings-problem-text';
import type { MapOutcome } from '../../../../app/admin/mapping-service';
import { ALLOW_REFUSAL, type AllowOutcome } from '../../../../app/admin/role-allowances';
import type { SettingsOutcome, StrictConfirmOutcome } from '../../../../app/admin/settings-service';
import type { SettingsProblem } from '../../../../core/settings-problem-text';
import type { RuleRoleOutcome } from '../../../../app/admin/rule-roles-service';
import type { CompRefusal } from '../../../../app/comps/comp-service';
import type { ApplyOutcome } from '../../../../app/dashboard/syncs';
import { STRICT_CONFIRMATION_MS } from '../../../../app/admin/settings-service';
import { ruleInvalidWords } from '../../bot/commands/settings';
import { heldReasonOnPage } from './render-syncs';
import { listIn, permissionIn } from './speech';
import type { DashboardFlash } from './views';

/**
 * The messages a page shows after a form, in the signed-in user's Discord language (`dashFlash.*`).
 * A refusal a service states in English is said from its facts where it has them (`refusal.*`,
 * `settingsSays.*`, the rule's bounds); English keeps the service's sentence.
 */

const ENGLISH_T = translator('en');
const plain = (text: string) => text.replace(/\*\*/g, '');
const lines = (...parts: string[]) => parts.filter(Boolean).join('\n');

/** A refusal about a role: its sentence and fix in the reader's language. */
function refused(t: T, refusal: { message: string; fix: string; facts?: Parameters<typeof refusalWords>[1]['facts'] }): string {
  const { message, fix } = refusalWords(t, refusal);
  return lines(t('dashFlash.refused', { message }), t('dashFlash.fix', { fix }));
}

/** Settings problems under "Nothing was changed:", each from its facts where another language can say it. */
function problemLines(t: T, head: string, said: readonly SettingsProblem[]): string {
  return [head, ...said.map((p) => plain(settingsProblemWords(t, p)))].join('\n');
}

/** The sentence for a `/map` or `/unmap` outcome, as the command would say it. */
export function mapFlash(verb: 'map' | 'unmap', outcome: MapOutcome, followUp: string, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'done': {
      const params = { tier: outcome.tierTitle, role: outcome.roleName };
      const head =
        verb === 'map' ? t(outcome.changed ? 'dashFlash.mapped' : 'dashFlash.alreadyMapped', params) : t('dashFlash.unmapped', params);
      return { tone: 'success', text: lines(head, followUp) };
    }
    case 'unknown_tier':
      return { tone: 'error', text: t('dashFlash.unknownTier') };
    case 'used':
      return { tone: 'error', text: t('dashFlash.used') };
    case 'role_refused':
      return { tone: 'error', text: refused(t, outcome) };
    case 'not_mapped':
      return {
        tone: 'info',
        text: t(outcome.viaTier ? 'dashFlash.viaTier' : 'dashFlash.notMapped', { tier: outcome.tierTitle, role: outcome.roleName }),
      };
    default: {
      // A refusal the service may add (its authority rules): said from its facts, else with its own words.
      const other = outcome as { message?: unknown; fix?: unknown; facts?: Parameters<typeof refusalWords>[1]['facts'] };
      if (typeof other.message === 'string' && typeof other.fix === 'string')
        return { tone: 'error', text: refused(t, { message: other.message, fix: other.fix, facts: other.facts }) };
      const message = typeof other.message === 'string' ? other.message : t('dashFlash.refusedGeneric');
      return { tone: 'error', text: t('dashFlash.refused', { message }) };
    }
  }
}

export function settingsFlash(outcome: SettingsOutcome, followUp: string, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'invalid':
      return { tone: 'error', text: problemLines(t, t('dashFlash.nothingChanged'), outcome.said) };
    case 'shown':
      return { tone: 'info', text: t('dashFlash.unchanged') };
    case 'used':
      return { tone: 'error', text: t('dashFlash.used') };
    case 'changed':
      // The notes: where an announcement channel's news comes from, or what keeps it from working.
      return { tone: 'success', text: lines(t('dashFlash.saved'), followUp, ...outcome.notes.map((n) => plain(channelNoteWords(t, n)))) };
    default: {
      // A refusal the service may add (its authority rules), or a change that needs a confirmation
      // the page does not offer: nothing was saved either way.
      const other = outcome as { said?: unknown };
      const said = Array.isArray(other.said) ? (other.said as SettingsProblem[]).filter((p) => typeof p?.text === 'string') : [];
      return {
        tone: 'error',
        text: said.length > 0 ? problemLines(t, t('dashFlash.nothingChanged'), said) : t('dashFlash.needsConfirmation'),
      };
    }
  }
}

export function strictFlash(outcome: StrictConfirmOutcome, followUp: string, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'changed':
      return { tone: 'success', text: lines(t('dashFlash.strictOn'), followUp) };
    case 'already_on':
      return { tone: 'info', text: t('dashFlash.strictAlreadyOn') };
    case 'expired':
      return { tone: 'error', text: t('dashFlash.strictExpired', { minutes: STRICT_CONFIRMATION_MS / 60_000 }) };
    case 'not_yours':
      return { tone: 'error', text: t('dashFlash.strictNotYours') };
    case 'not_allowed':
      return { tone: 'error', text: problemLines(t, t('dashFlash.strictRefused'), outcome.said) };
  }
}

export function ruleFlash(outcome: RuleRoleOutcome, followUp: string, verb: 'set' | 'remove', t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'done':
      return {
        tone: outcome.changed ? 'success' : 'info',
        text: outcome.changed
          ? lines(t(verb === 'set' ? 'dashFlash.ruleSaved' : 'dashFlash.ruleRemoved'), followUp)
          : t('dashFlash.nothingToChange'),
      };
    case 'invalid':
      return { tone: 'error', text: t('dashFlash.refused', { message: plain(ruleInvalidWords(t, outcome)) }) };
    case 'not_allowed':
      return { tone: 'error', text: refused(t, outcome) };
    case 'preview':
    case 'used':
      return { tone: 'error', text: t('dashFlash.used') };
  }
}

/** A comp refused, in the reader's language (a date or reason refused from its facts, as `/comp` says it). */
export function compRefusal(outcome: CompRefusal, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'unknown_tier':
      return { tone: 'error', text: t('dashFlash.unknownTier') };
    case 'bad_until':
    case 'bad_reason':
      return { tone: 'error', text: t('dashFlash.refused', { message: compInputWords(t, outcome) }) };
    case 'not_allowed':
      return { tone: 'error', text: refused(t, outcome) };
  }
}

export function applyFlash(outcome: ApplyOutcome, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'done': {
      const r = outcome.report;
      const changes = [
        t('dashOv.changes.given', { count: r.applied.adds }),
        t('dashOv.changes.taken', { count: r.applied.removes }),
        ...(r.failed ? [t('dashOv.changes.failed', { count: r.failed })] : []),
      ].join(', ');
      const reason = r.held ? heldReasonOnPage(t, r.held) : '';
      const held = r.held ? ` ${t('dashFlash.heldAgain', { count: r.held.removals, reason })}` : '';
      return { tone: r.held || r.failed > 0 ? 'warning' : 'success', text: `${t('dashFlash.syncDone', { changes })}${held}` };
    }
    case 'running':
      return { tone: 'info', text: t('dashFlash.syncRunning') };
    case 'busy':
      return { tone: 'warning', text: t('dashFlash.syncBusy') };
    case 'nothing':
      // A run's error is the service's English; none means no campaign.
      return { tone: 'warning', text: t('dashFlash.syncNothing', { error: outcome.errors[0] ?? t('dashFlash.noCampaign') }) };
  }
}

/** Who gets an allowed role, as `/allow-role` says it: "to the patrons of Insider and as the follower role". */
function recipientsIn(t: T, outcome: { tiers: readonly string[]; settings: readonly string[] }): string {
  const parts = [
    ...(outcome.tiers.length > 0 ? [t('allow.toPatrons', { tiers: listIn(t, outcome.tiers) })] : []),
    ...(outcome.settings.length > 0 ? [t('allow.asSetting', { settings: listIn(t, outcome.settings) })] : []),
  ];
  return parts.length > 0 ? listIn(t, parts) : t('allow.anyTier');
}

/** The sentence for an allowance from the tiers page, as `/allow-role` would say it. */
export function allowFlash(outcome: AllowOutcome, followUp: string, t: T = ENGLISH_T): DashboardFlash {
  switch (outcome.kind) {
    case 'allowed': {
      const permissions = listIn(
        t,
        outcome.permissions.map((p) => permissionIn(t, p)),
      );
      return {
        tone: 'success',
        text: lines(t('dashFlash.allowed', { role: outcome.roleName, permissions, recipients: recipientsIn(t, outcome) }), followUp),
      };
    }
    case 'allowed_above_connector':
      return {
        tone: 'success',
        text: lines(t('dashFlash.allowedAboveConnector', { role: outcome.roleName, recipients: recipientsIn(t, outcome) }), followUp),
      };
    case 'not_dangerous':
      return { tone: 'info', text: t('dashFlash.notDangerous', { role: outcome.roleName }) };
    case 'not_allowed':
      // The owner or an administrator: the same refusal as `/allow-role`'s in the reader's language
      // (not being a member of the server any more stays the service's English).
      return {
        tone: 'error',
        text:
          t.locale !== 'en' && outcome.message === ALLOW_REFUSAL.message
            ? plain(t('allow.refusal'))
            : t('dashFlash.notAllowed', { message: outcome.message, fix: outcome.fix }),
      };
    case 'role_refused':
      return { tone: 'error', text: t('dashFlash.notAllowed', refusalWords(t, outcome)) };
    case 'withdrawn':
    case 'not_allowed_before':
      return { tone: 'info', text: t('dashFlash.heldBack', { role: outcome.roleName }) };
  }
}
