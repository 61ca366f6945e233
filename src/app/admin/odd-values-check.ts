import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { OddValueEntry } from '../../edges/outbound/patreon/odd-values';
import type { DoctorCheck } from './doctor';
import { type Said, says, withSaid } from './doctor-says';

/** Kinds of odd value named in `/doctor` (all are kept: src/edges/outbound/patreon/odd-values.ts). */
const LISTED = 4;

const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ') + ' UTC';

/** What an attribute is, in Patreon's words. */
const WHAT: Record<string, string> = {
  'tier title': 'title',
  'tier published': 'published setting',
  'tier patron_count': 'patron count',
  'user full_name': 'name',
  'user social_connections': 'connected accounts',
  'member full_name': 'name',
  'member is_follower': 'follower flag',
};

const named = (e: OddValueEntry): string => {
  const what = WHAT[`${e.type} ${e.attribute}`] ?? e.attribute;
  const who = e.type === 'user' ? 'patron' : e.type;
  const found = e.found === 'null' || e.found === 'missing' ? `as ${e.found === 'null' ? 'empty (null)' : 'missing'}` : `as ${e.found}`;
  const times = e.count === 1 ? 'once' : `${e.count} times`;
  return `${who} ${e.exampleId}’s ${what} ${found} (${times}, last ${minute(e.lastSeen)})`;
};

/** What an attribute is, in Patreon's words, as a catalogue key. */
const WHAT_SAID: Record<string, Said> = {
  'tier title': says('doctorSays.oddWhat.title'),
  'tier published': says('doctorSays.oddWhat.published'),
  'tier patron_count': says('doctorSays.oddWhat.patronCount'),
  'user full_name': says('doctorSays.oddWhat.name'),
  'user social_connections': says('doctorSays.oddWhat.connections'),
  'member full_name': says('doctorSays.oddWhat.name'),
  'member is_follower': says('doctorSays.oddWhat.follower'),
};

const WHO_SAID: Record<string, Said> = {
  user: says('doctorSays.oddWho.patron'),
  tier: says('doctorSays.oddWho.tier'),
  member: says('doctorSays.oddWho.member'),
};

/** The same entry as a sentence; the attribute's own name and the value Patreon sent stay as they were. */
const namedSaid = (e: OddValueEntry): Said =>
  says('doctorSays.oddEntry', {
    who: WHO_SAID[e.type] ?? e.type,
    id: e.exampleId,
    what: WHAT_SAID[`${e.type} ${e.attribute}`] ?? e.attribute,
    found:
      e.found === 'null'
        ? says('doctorSays.oddNull')
        : e.found === 'missing'
          ? says('doctorSays.oddMissing')
          : says('doctorSays.oddAs', { value: e.found }),
    times: says('doctorSays.oddTimes', { count: e.count }),
    when: minute(e.lastSeen),
  });

/**
 * What Patreon answered oddly lately: a tier without a title, a patron without a name. Tolerated
 * (nothing of it decides a role, so every member stays readable and every role right), and worth
 * knowing. Null when there was nothing.
 */
export async function oddValuesCheck(accounts: Pick<CreatorAccounts, 'oddValues'>): Promise<DoctorCheck | null> {
  const entries = await accounts.oddValues.list();
  if (entries.length === 0) return null;
  const more = entries.length > LISTED ? `; and ${entries.length - LISTED} more kinds` : '';
  return withSaid(
    {
      name: 'Odd answers from Patreon',
      ok: false,
      detail: `Patreon answered ${entries.slice(0, LISTED).map(named).join('; ')}${more}. Roles are not affected: these values only label.`,
      fix:
        'Nothing to do in Tierlink. A tier without a title shows as “Tier <id>” until it has one on Patreon; ' +
        'this line goes a week after Patreon last answered so.',
    },
    says('doctorSays.odd', {
      entries: { all: entries.slice(0, LISTED).map(namedSaid) },
      more: entries.length > LISTED ? says('doctorSays.oddMore', { count: entries.length - LISTED }) : '',
    }),
    says('doctorSays.oddFix'),
  );
}
