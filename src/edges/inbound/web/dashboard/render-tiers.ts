import { WELCOME_NAMES } from '../../../../core/channel-posts';
import { PREVIEW_THRESHOLD_BOUNDS } from '../../../../core/bulk-changes';
import { priceText } from '../../../../core/i18n/price';
import type { GuildAccess } from '../../../../app/dashboard/access';
import type { ConfigurationView, RoleChoice } from '../../../../app/dashboard/configuration';
import { SETTING_BOUNDS } from '../../../../core/planner/settings';
import { CHANNEL_SETTINGS, type ChannelSetting, channelOf } from '../../../../core/guild-channels';
import { type SafeHtml, html, prose, trustedHtml } from '../pages/html';
import { mention } from '../pages/layout';
import { richOf } from '../pages/speech';
import { LANGUAGE_NAMES, LOCALES, type T, translator } from '../../../../core/i18n';
import { ANY_MEMBERSHIP_TIER, DONATION_TIER, KOFI } from '../../../../edges/outbound/kofi/kofi-payment';
import { refusalWords } from '../../../../core/refusal-text';
import { listIn, permissionIn } from './speech';
import { type Viewer, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';

const selected = (on: boolean) => (on ? trustedHtml(' selected') : null);
const checked = (on: boolean) => (on ? trustedHtml(' checked') : null);
const disabled = (off: boolean) => (off ? trustedHtml(' disabled') : null);

function roleOptions(roles: readonly RoleChoice[], current: string | null, t: T): SafeHtml[] {
  return roles.map(
    (r) =>
      html`<option value="${r.id}"${selected(r.id === current)}>${r.problem ? t('dashTier.cannotGive', { role: r.name }) : r.name}</option>`,
  );
}

function numberField(o: { name: string; label: string; value: number; min: number; max: number; hint: string; locked: boolean }): SafeHtml {
  return html`<div class="field"><label for="${o.name}">${o.label}</label><input type="number" id="${o.name}" name="${o.name}" value="${o.value}" min="${o.min}" max="${o.max}" step="1" required aria-describedby="${o.name}-hint"${disabled(o.locked)}><p class="hint" id="${o.name}-hint">${o.hint}</p></div>`;
}

/** A rule's amount a month: "20.00" in English (as `/settings` writes it), the language's way otherwise ("20,00"). */
function ruleAmount(t: T, cents: number): string {
  if (t.locale === 'en') return (cents / 100).toFixed(2);
  return new Intl.NumberFormat(t.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cents / 100);
}

/**
 * A tier's title: the creator's own, or the reader's words for the two tiers Tierlink names itself
 * on Ko-fi (any membership, a donation; stored in English, src/edges/outbound/kofi/kofi-payments.ts).
 */
function tierTitle(t: T, tier: { campaignId: string; tierId: string; title: string }): string {
  if (tier.campaignId !== KOFI) return tier.title;
  if (tier.tierId === ANY_MEMBERSHIP_TIER) return t('dashTier.kofiAny');
  if (tier.tierId === DONATION_TIER) return t('dashTier.kofiDonation');
  return tier.title;
}

/**
 * Tiers and roles: what each tier gives and where that comes from, the mapping form, and the
 * settings, in the signed-in user's Discord language. A tier's price is written as its campaign
 * states it (src/core/i18n/price.ts). A role's own problem (why the bot cannot give it) is said
 * from its facts (`refusal.*`); English, and a problem without facts, as Tierlink records it.
 */
export function renderTiers(o: { access: GuildAccess; viewer: Viewer; view: ConfigurationView; flash: DashboardFlash | null }): string {
  const { access, view, viewer } = o;
  const t = translator(viewer.locale ?? 'en');
  const rich = richOf(t);
  const locked = !access.canChange;
  const action = (path: string) => guildPath(access.guildId, path);
  const allowForm = (roleId: string, name: string) =>
    html`<form method="post" action="${action('/tiers/allow')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="role" value="${roleId}"><button class="btn" type="submit">${t(
      'dashTier.allow',
      { role: name },
    )}</button></form>`;
  const severalCampaigns = view.tiers.some((x) => x.campaignId !== view.tiers[0]?.campaignId);
  const tiers =
    view.tiers.length === 0
      ? html`<p class="hint">${rich('dashTier.noTiers')}</p>`
      : html`<ul class="list">${view.tiers.map(
          (
            tier,
          ) => html`<li class="item"><div class="item-head"><span class="item-title">${tierTitle(t, tier)}</span><span class="muted">${priceText(
            { ...tier.pricing, amountCents: tier.amountCents },
            t,
          )}${tier.patronCount !== null ? ` · ${t('tiers.patrons', { count: tier.patronCount })}` : ''}${
            severalCampaigns ? ` · ${tier.campaignName}` : ''
          }</span></div>
${
  tier.roles.length === 0
    ? html`<p class="item-text">${t('dashTier.givesNone')}</p>`
    : html`<ul class="chips" aria-label="${t('dashTier.rolesOf', { tier: tierTitle(t, tier) })}">${tier.roles.map(
        (r) =>
          html`<li class="chip">${r.roleName ? mention(r.roleName) : html`<span>${t('dashTier.roleId', { id: r.roleId })}</span>`}<span class="muted">${t(
            r.source === 'map'
              ? 'dashTier.from.map'
              : r.source === 'chat_role_ids'
                ? 'dashTier.from.chat_role_ids'
                : 'dashTier.from.setting',
          )}</span>${
            r.source === 'map' && !locked
              ? html`<form method="post" action="${action('/tiers/unmap')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="tier" value="${tier.ref}"><input type="hidden" name="role" value="${r.roleId}"><button class="link-button" type="submit" aria-label="${t(
                  'dashTier.removeFrom',
                  { role: r.roleName ?? r.roleId, tier: tierTitle(t, tier) },
                )}">${t('dashTier.remove')}</button></form>`
              : null
          }</li>`,
      )}</ul>`
}
${tier.roles
  .filter((r) => r.problem)
  .map((r) => {
    const { message, fix } = refusalWords(t, r.problem!);
    const line = html`<p class="item-fix"><strong>${r.roleName ?? t('dashTier.roleIdTitle', { id: r.roleId })}:</strong> ${prose(message)} <strong>${t(
      'dashMem.fix',
    )}</strong> ${prose(fix)}</p>`;
    // Above whoever connected the campaign: someone who may give the role allows it here (the service checks who).
    return r.problem!.facts?.code === 'above_connector' && !locked
      ? html`<div class="item-fix">${line}${allowForm(r.roleId, r.roleName ?? r.roleId)}</div>`
      : line;
  })}
${tier.roles
  .filter((r) => !r.problem && r.heldBack)
  .map((r) => {
    const held = r.heldBack!;
    const name = r.roleName ?? r.roleId;
    const why =
      t.locale === 'en'
        ? held.message
        : t(held.gained ? 'dashTier.heldBackGained' : 'dashTier.heldBack', {
            role: name,
            count: held.permissions.length,
            permissions: listIn(
              t,
              held.permissions.map((p) => permissionIn(t, p)),
            ),
          });
    return html`<div class="item-fix"><p>${prose(why)} ${t('dashTier.heldBackWhy')}</p>${locked ? null : allowForm(r.roleId, name)}</div>`;
  })}
</li>`,
        )}</ul>`;

  const mapForm = html`<form class="cols form-row" method="post" action="${action('/tiers/map')}">${csrfField(viewer.csrfToken)}
<div class="field"><label for="map-tier">${t('dashMem.tier')}</label><select id="map-tier" name="tier" required${disabled(locked)}><option value="">${t(
    'dashMem.chooseTier',
  )}</option>${view.tiers.map(
    (tier) =>
      html`<option value="${tier.ref}">${tierTitle(t, tier)} (${priceText({ ...tier.pricing, amountCents: tier.amountCents }, t)})</option>`,
  )}</select></div>
<div class="field"><label for="map-role">${t('dashAud.role')}</label><select id="map-role" name="role" required${disabled(locked)}><option value="">${t(
    'dashTier.chooseRole',
  )}</option>${roleOptions(view.roles, null, t)}</select></div>
<div class="actions"><button class="btn" type="submit"${disabled(locked || view.tiers.length === 0)}>${t('dashTier.giveRole')}</button></div>
</form>`;

  const s = view.settings;
  const c = view.choices;
  // The server's language, named in the viewer's language; each language by its own name.
  const languageField = html`<div class="field"><label for="server_language">${t('dashLang.label')}</label><select id="server_language" name="server_language" aria-describedby="server_language-hint"${disabled(locked)}><option value="discord"${selected(c.locale === null)}>${t('dashLang.discord', { language: LANGUAGE_NAMES[c.discordLocale] })}</option>${LOCALES.map(
    (l) => html`<option value="${l}" lang="${l}"${selected(c.locale === l)}>${LANGUAGE_NAMES[l]}</option>`,
  )}</select><p class="hint" id="server_language-hint">${t('dashLang.hint')}</p></div>`;
  const none = t('dashTier.none');
  const settingsForm = html`<form class="fields" method="post" action="${action('/settings')}">${csrfField(viewer.csrfToken)}
<div class="cols two">
${numberField({ name: 'grace_days', label: t('dashTier.grace'), value: s.graceDays, ...SETTING_BOUNDS.graceDays, hint: t('dashTier.graceHint'), locked })}
<fieldset class="field"><legend>${t('dashTier.mode')}</legend>
<label class="check"><input type="radio" name="mode" value="stack"${checked(s.mode === 'stack')}${disabled(locked)}> ${t('dashTier.modeStack')}</label>
<label class="check"><input type="radio" name="mode" value="highest"${checked(s.mode === 'highest')}${disabled(locked)}> ${t('dashTier.modeHighest')}</label>
</fieldset>
<div class="field"><label for="former_role">${t('dashTier.former')}</label><select id="former_role" name="former_role"${disabled(locked)}><option value="">${none}</option>${roleOptions(view.roles, s.formerPatronRoleId, t)}</select></div>
<div class="field"><label for="follower_role">${t('dashTier.follower')}</label><select id="follower_role" name="follower_role"${disabled(locked)}><option value="">${none}</option>${roleOptions(view.roles, s.followerRoleId, t)}</select></div>
${numberField({ name: 'removal_threshold_percent', label: t('dashTier.guardPercent'), value: s.removalThresholdPercent, ...SETTING_BOUNDS.removalThresholdPercent, hint: t('dashTier.guardPercentHint'), locked })}
${numberField({ name: 'removal_threshold_min', label: t('dashTier.guardMin'), value: s.removalThresholdMin, ...SETTING_BOUNDS.removalThresholdMin, hint: t('dashTier.guardMinHint'), locked })}
</div>
<label class="check"><input type="checkbox" name="free_tiers_grant_roles" value="on"${checked(s.freeTiersGrantRoles !== false)}${disabled(locked)}> ${t('dashTier.freeTiers')}</label>
<label class="check"><input type="checkbox" name="strict" value="on"${checked(s.strict)}${disabled(locked)}> ${t('dashTier.strict')}</label>
<fieldset class="field"><legend>${t('dashTier.choices')}</legend><input type="hidden" name="choices" value="on">
<label class="check"><input type="checkbox" name="patron_messages" value="on"${checked(c.patronMessages)}${disabled(locked)}> ${t('dashTier.patronMessages')}</label>
<label class="check"><input type="checkbox" name="link_messages" value="on"${checked(c.linkMessages)}${disabled(locked)}> ${t('dashTier.linkMessages')}</label>
<p class="hint">${prose(t('dashTier.privacy'))}</p>
${languageField}
<div class="field"><label for="welcome_names">${t('dashTier.welcomeNames')}</label><select id="welcome_names" name="welcome_names" aria-describedby="welcome_names-hint"${disabled(locked)}>${WELCOME_NAMES.map(
    (value) => html`<option value="${value}"${selected(c.welcomeNames === value)}>${t(`dashTier.welcomeNames.${value}`)}</option>`,
  )}</select><p class="hint" id="welcome_names-hint">${t('dashTier.welcomeNamesHint')}</p></div>
${numberField({ name: 'preview_threshold', label: t('dashTier.previewThreshold'), value: c.previewThreshold, ...PREVIEW_THRESHOLD_BOUNDS, hint: t('dashTier.previewThresholdHint'), locked })}
</fieldset>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>${t('dashTier.saveSettings')}</button></div>
</form>`;

  const channelSelect = (key: ChannelSetting) => {
    const { option } = CHANNEL_SETTINGS[key];
    const current = channelOf(view.channels, key);
    const known = view.channelChoices.some((ch) => ch.id === current);
    return html`<div class="field"><label for="${option}">${t(`dashTier.channel.${key}`)}</label><select id="${option}" name="${option}" aria-describedby="${option}-hint"${disabled(locked)}><option value="">${t(
      'dashTier.channelOff',
    )}</option>${
      current && !known ? html`<option value="${current}" selected>${t('dashTier.channelMissing', { id: current })}</option>` : null
    }${view.channelChoices.map((ch) => html`<option value="${ch.id}"${selected(ch.id === current)}>#${ch.name}</option>`)}</select><p class="hint" id="${option}-hint">${t(
      `dashTier.channelHint.${key}`,
    )}</p></div>`;
  };
  const channelsForm = html`<form class="fields" method="post" action="${action('/channels')}">${csrfField(viewer.csrfToken)}
<div class="cols two">
${channelSelect('modLog')}
${channelSelect('announcePatrons')}
${channelSelect('announcePosts')}
</div>
<p class="hint">${t('dashTier.channelPermissions')}</p>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>${t('dashTier.saveChannels')}</button></div>
</form>`;

  const roleName = (id: string) => view.roles.find((r) => r.id === id)?.name ?? t('dashTier.roleId', { id });
  const rules = html`${
    view.rules.length === 0
      ? html`<p class="hint">${t('dashTier.noRules')}</p>`
      : html`<ul class="list">${view.rules.map(
          (r) =>
            html`<li class="item"><div class="item-head"><span class="item-title">${mention(roleName(r.roleId))}</span><span class="muted">${
              r.kind === 'tenure'
                ? t('dashTier.ruleTenure', { count: r.months })
                : t('dashTier.ruleAmount', { amount: ruleAmount(t, r.cents) })
            }</span></div>${
              locked
                ? null
                : html`<form method="post" action="${action('/rules/remove')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="role" value="${r.roleId}"><button class="link-button" type="submit" aria-label="${t(
                    'dashTier.ruleRemove',
                    { role: roleName(r.roleId) },
                  )}">${t('dashTier.remove')}</button></form>`
            }</li>`,
        )}</ul>`
  }<form class="cols form-row" method="post" action="${action('/rules')}">${csrfField(viewer.csrfToken)}
<div class="field"><label for="rule-role">${t('dashAud.role')}</label><select id="rule-role" name="role" required${disabled(locked)}><option value="">${t(
    'dashTier.chooseRole',
  )}</option>${roleOptions(view.roles, null, t)}</select></div>
<div class="field"><label for="rule-kind">${t('dashTier.ruleFor')}</label><select id="rule-kind" name="kind"${disabled(locked)}><option value="tenure">${t(
    'dashTier.ruleKindTenure',
  )}</option><option value="amount">${t('dashTier.ruleKindAmount')}</option></select></div>
<div class="field"><label for="rule-value">${t('dashTier.ruleAtLeast')}</label><input type="number" id="rule-value" name="value" min="0.01" step="0.01" required${disabled(locked)}></div>
<div class="actions"><button class="btn" type="submit"${disabled(locked)}>${t('dashTier.addRule')}</button></div>
</form>`;

  return renderDashboard({
    title: t('dash.tiers'),
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash: o.flash,
    intro: locked ? t('dashTier.introLocked') : t('dashTier.intro'),
    main: html`<div class="stack">
${panel({ id: 'tiers', title: t('dashTier.tiers'), body: tiers })}
${panel({ id: 'map', title: t('dashTier.map'), hint: t('dashTier.mapHint'), body: mapForm })}
${panel({ id: 'rules', title: t('dashTier.rules'), hint: t('dashTier.rulesHint'), body: rules })}
${panel({ id: 'settings', title: t('dashTier.settings'), body: settingsForm })}
${panel({ id: 'channels', title: t('dashTier.channels'), hint: t('dashTier.channelsHint'), body: channelsForm })}
</div>`,
  });
}
