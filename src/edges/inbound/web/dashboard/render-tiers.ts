import type { WelcomeNames } from '../../../../core/channel-posts';
import { PREVIEW_THRESHOLD_BOUNDS } from '../../../../core/bulk-changes';
import { priceText } from '../../../../core/i18n/price';
import type { GuildAccess } from '../../../../app/dashboard/access';
import type { ConfigurationView, RoleChoice } from '../../../../app/dashboard/configuration';
import { SETTING_BOUNDS } from '../../../../core/planner/settings';
import { CHANNEL_SETTINGS, type ChannelSetting, channelOf } from '../../../../core/guild-channels';
import { type SafeHtml, html, plural, prose, trustedHtml } from '../pages/html';
import { mention } from '../pages/layout';
import { LANGUAGE_NAMES, LOCALES, translator } from '../../../../core/i18n';
import { type Viewer, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';

const money = (cents: number) => `$${(cents / 100).toFixed(cents % 100 === 0 ? 0 : 2)}`;
const selected = (on: boolean) => (on ? trustedHtml(' selected') : null);
const checked = (on: boolean) => (on ? trustedHtml(' checked') : null);
const disabled = (off: boolean) => (off ? trustedHtml(' disabled') : null);

function roleOptions(roles: readonly RoleChoice[], current: string | null): SafeHtml[] {
  return roles.map(
    (r) => html`<option value="${r.id}"${selected(r.id === current)}>${r.name}${r.problem ? ' (Tierlink cannot give it)' : ''}</option>`,
  );
}

function numberField(o: { name: string; label: string; value: number; min: number; max: number; hint: string; locked: boolean }): SafeHtml {
  return html`<div class="field"><label for="${o.name}">${o.label}</label><input type="number" id="${o.name}" name="${o.name}" value="${o.value}" min="${o.min}" max="${o.max}" step="1" required aria-describedby="${o.name}-hint"${disabled(o.locked)}><p class="hint" id="${o.name}-hint">${o.hint}</p></div>`;
}

const WELCOME_NAME_CHOICES: ReadonlyArray<readonly [WelcomeNames, string]> = [
  ['mention', 'their Discord mention (pings nobody)'],
  ['display_name', 'their name in this server'],
  ['none', 'no name'],
];

/** Tiers and roles: what each tier gives and where that comes from, the mapping form, and the settings. */
export function renderTiers(o: { access: GuildAccess; viewer: Viewer; view: ConfigurationView; flash: DashboardFlash | null }): string {
  const { access, view, viewer } = o;
  const locked = !access.canChange;
  const action = (path: string) => guildPath(access.guildId, path);
  const tiers =
    view.tiers.length === 0
      ? html`<p class="hint">No tiers yet: connect a campaign with <code>/connect</code>.</p>`
      : html`<ul class="list">${view.tiers.map(
          (
            t,
          ) => html`<li class="item"><div class="item-head"><span class="item-title">${t.title}</span><span class="muted">${priceText({ ...t.pricing, amountCents: t.amountCents })}${
            t.patronCount !== null ? ` · ${plural(t.patronCount, 'patron')}` : ''
          }${view.tiers.some((x) => x.campaignId !== t.campaignId) ? ` · ${t.campaignName}` : ''}</span></div>
${
  t.roles.length === 0
    ? html`<p class="item-text">Gives no role in this server.</p>`
    : html`<ul class="chips" aria-label="Roles of ${t.title}">${t.roles.map(
        (r) =>
          html`<li class="chip">${r.roleName ? mention(r.roleName) : html`<span>role ${r.roleId}</span>`}<span class="muted">${
            r.source === 'map' ? 'mapped here' : r.source === 'chat_role_ids' ? 'tier’s role on Patreon' : 'setting'
          }</span>${
            r.source === 'map' && !locked
              ? html`<form method="post" action="${action('/tiers/unmap')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="tier" value="${t.ref}"><input type="hidden" name="role" value="${r.roleId}"><button class="link-button" type="submit" aria-label="Remove ${r.roleName ?? r.roleId} from ${t.title}">Remove</button></form>`
              : null
          }</li>`,
      )}</ul>`
}
${t.roles
  .filter((r) => r.problem)
  .map(
    (r) =>
      html`<p class="item-fix"><strong>${r.roleName ?? `Role ${r.roleId}`}:</strong> ${prose(r.problem!.message)} <strong>Fix:</strong> ${prose(r.problem!.fix)}</p>`,
  )}
${t.roles
  .filter((r) => !r.problem && r.heldBack)
  .map(
    (r) =>
      html`<div class="item-fix"><p>${prose(r.heldBack!.message)} Everyone Tierlink gives it to would have that power, so only the server owner or an administrator can allow it.</p>${
        locked
          ? null
          : html`<form method="post" action="${action('/tiers/allow')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="role" value="${r.roleId}"><button class="btn" type="submit">Allow Tierlink to give ${r.roleName ?? r.roleId}</button></form>`
      }</div>`,
  )}
</li>`,
        )}</ul>`;

  const mapForm = html`<form class="cols form-row" method="post" action="${action('/tiers/map')}">${csrfField(viewer.csrfToken)}
<div class="field"><label for="map-tier">Tier</label><select id="map-tier" name="tier" required${disabled(locked)}><option value="">Choose a tier</option>${view.tiers.map(
    (t) => html`<option value="${t.ref}">${t.title} (${money(t.amountCents)})</option>`,
  )}</select></div>
<div class="field"><label for="map-role">Role</label><select id="map-role" name="role" required${disabled(locked)}><option value="">Choose a role</option>${roleOptions(view.roles, null)}</select></div>
<div class="actions"><button class="btn" type="submit"${disabled(locked || view.tiers.length === 0)}>Give this role</button></div>
</form>`;

  const s = view.settings;
  const c = view.choices;
  // The server's language, named in the viewer's language; each language by its own name.
  const t = translator(viewer.locale ?? 'en');
  const languageField = html`<div class="field"><label for="server_language">${t('dashLang.label')}</label><select id="server_language" name="server_language" aria-describedby="server_language-hint"${disabled(locked)}><option value="discord"${selected(c.locale === null)}>${t('dashLang.discord', { language: LANGUAGE_NAMES[c.discordLocale] })}</option>${LOCALES.map(
    (l) => html`<option value="${l}" lang="${l}"${selected(c.locale === l)}>${LANGUAGE_NAMES[l]}</option>`,
  )}</select><p class="hint" id="server_language-hint">${t('dashLang.hint')}</p></div>`;
  const settingsForm = html`<form class="fields" method="post" action="${action('/settings')}">${csrfField(viewer.csrfToken)}
<div class="cols two">
${numberField({ name: 'grace_days', label: 'Grace period (days)', value: s.graceDays, ...SETTING_BOUNDS.graceDays, hint: 'How long roles stay after a declined payment.', locked })}
<fieldset class="field"><legend>Roles of patrons in several tiers</legend>
<label class="check"><input type="radio" name="mode" value="stack"${checked(s.mode === 'stack')}${disabled(locked)}> Every tier’s roles (stack)</label>
<label class="check"><input type="radio" name="mode" value="highest"${checked(s.mode === 'highest')}${disabled(locked)}> Only the highest tier’s roles</label>
</fieldset>
<div class="field"><label for="former_role">Former-patron role</label><select id="former_role" name="former_role"${disabled(locked)}><option value="">None</option>${roleOptions(view.roles, s.formerPatronRoleId)}</select></div>
<div class="field"><label for="follower_role">Follower role</label><select id="follower_role" name="follower_role"${disabled(locked)}><option value="">None</option>${roleOptions(view.roles, s.followerRoleId)}</select></div>
${numberField({ name: 'removal_threshold_percent', label: 'Hold a sync’s removals above (% of grants)', value: s.removalThresholdPercent, ...SETTING_BOUNDS.removalThresholdPercent, hint: 'The mass-removal guard: a sync that would take away more holds them for you to confirm.', locked })}
${numberField({ name: 'removal_threshold_min', label: '…when they are at least', value: s.removalThresholdMin, ...SETTING_BOUNDS.removalThresholdMin, hint: 'Small servers: fewer removals than this are never held.', locked })}
</div>
<label class="check"><input type="checkbox" name="free_tiers_grant_roles" value="on"${checked(s.freeTiersGrantRoles !== false)}${disabled(locked)}> Free tiers grant their roles: free members get a free tier’s roles (off: only the follower role)</label>
<label class="check"><input type="checkbox" name="strict" value="on"${checked(s.strict)}${disabled(locked)}> Strict: remove mapped roles from anyone not entitled, even if given by hand</label>
<fieldset class="field"><legend>Patrons and welcomes (needs Manage Server)</legend><input type="hidden" name="choices" value="on">
<label class="check"><input type="checkbox" name="patron_messages" value="on"${checked(c.patronMessages)}${disabled(locked)}> Message a patron when a payment is declined and when the grace period ends</label>
<label class="check"><input type="checkbox" name="link_messages" value="on"${checked(c.linkMessages)}${disabled(locked)}> Message a patron when they link their membership here</label>
<p class="hint">Each patron can turn these messages off for themselves with /privacy.</p>
${languageField}
<div class="field"><label for="welcome_names">Welcomes name new patrons by</label><select id="welcome_names" name="welcome_names" aria-describedby="welcome_names-hint"${disabled(locked)}>${WELCOME_NAME_CHOICES.map(
    ([value, label]) => html`<option value="${value}"${selected(c.welcomeNames === value)}>${label}</option>`,
  )}</select><p class="hint" id="welcome_names-hint">Only members who are in the server and linked are ever named, never by their Patreon name.</p></div>
${numberField({ name: 'preview_threshold', label: 'In Discord, show a change first from (role changes)', value: c.previewThreshold, ...PREVIEW_THRESHOLD_BOUNDS, hint: '/map, /unmap and /settings show what a change would do and wait for Confirm from this many role changes; 0 always asks. This page always asks.', locked })}
</fieldset>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>Save settings</button></div>
</form>`;

  const channelSelect = (key: ChannelSetting, hint: string) => {
    const { option, label } = CHANNEL_SETTINGS[key];
    const current = channelOf(view.channels, key);
    const known = view.channelChoices.some((c) => c.id === current);
    return html`<div class="field"><label for="${option}">${label[0]!.toUpperCase()}${label.slice(1)}</label><select id="${option}" name="${option}" aria-describedby="${option}-hint"${disabled(locked)}><option value="">Off</option>${
      current && !known ? html`<option value="${current}" selected>channel ${current} (not found)</option>` : null
    }${view.channelChoices.map((c) => html`<option value="${c.id}"${selected(c.id === current)}>#${c.name}</option>`)}</select><p class="hint" id="${option}-hint">${hint}</p></div>`;
  };
  const channelsForm = html`<form class="fields" method="post" action="${action('/channels')}">${csrfField(viewer.csrfToken)}
<div class="cols two">
${channelSelect('modLog', 'Tierlink’s role changes, a few seconds after they happen, grouped per member. Pings no one.')}
${channelSelect('announcePatrons', 'A welcome when someone’s pledge begins (once per pledge).')}
${channelSelect('announcePosts', 'Each new post: its title, its link and which tiers can see it.')}
</div>
<p class="hint">Tierlink needs View Channel and Send Messages in each channel, and Embed Links for the mod-log and new posts; it says what to allow when it lacks one.</p>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>Save channels</button></div>
</form>`;

  const roleName = (id: string) => view.roles.find((r) => r.id === id)?.name ?? `role ${id}`;
  const rules = html`${
    view.rules.length === 0
      ? html`<p class="hint">None yet.</p>`
      : html`<ul class="list">${view.rules.map(
          (r) =>
            html`<li class="item"><div class="item-head"><span class="item-title">${mention(roleName(r.roleId))}</span><span class="muted">${
              r.kind === 'tenure'
                ? `patrons of ${plural(r.months, 'month')} or more`
                : `${(r.cents / 100).toFixed(2)} or more a month, whatever the tier`
            }</span></div>${
              locked
                ? null
                : html`<form method="post" action="${action('/rules/remove')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="role" value="${r.roleId}"><button class="link-button" type="submit" aria-label="Stop giving ${roleName(r.roleId)} by this rule">Remove</button></form>`
            }</li>`,
        )}</ul>`
  }<form class="cols form-row" method="post" action="${action('/rules')}">${csrfField(viewer.csrfToken)}
<div class="field"><label for="rule-role">Role</label><select id="rule-role" name="role" required${disabled(locked)}><option value="">Choose a role</option>${roleOptions(view.roles, null)}</select></div>
<div class="field"><label for="rule-kind">For</label><select id="rule-kind" name="kind"${disabled(locked)}><option value="tenure">patrons of at least (months)</option><option value="amount">pledges of at least (a month, campaign currency)</option></select></div>
<div class="field"><label for="rule-value">At least</label><input type="number" id="rule-value" name="value" min="0.01" step="0.01" required${disabled(locked)}></div>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>Add this rule</button></div>
</form>`;

  return renderDashboard({
    title: 'Tiers and roles',
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash: o.flash,
    intro: locked
      ? 'You can look but not change: changes need the Manage Roles permission in this server, as /map and /settings do.'
      : 'A change that moves roles shows what it would do first; once confirmed it is checked and applied like /map, /unmap and /settings, and members’ roles follow within seconds.',
    main: html`<div class="stack">
${panel({ id: 'tiers', title: 'What each tier gives', body: tiers })}
${panel({ id: 'map', title: 'Give a role with a tier', hint: 'On top of the tier’s own Discord role on Patreon.', body: mapForm })}
${panel({
  id: 'rules',
  title: 'Roles by tenure and amount',
  hint: 'Whatever the tier: a role for patrons of long standing (a declined payment inside its grace period does not break the count), or for everyone pledging at least an amount a month.',
  body: rules,
})}
${panel({ id: 'settings', title: 'Settings', body: settingsForm })}
${panel({ id: 'channels', title: 'Channels', hint: 'Where Tierlink posts in this server; each is off until you choose one.', body: channelsForm })}
</div>`,
  });
}
