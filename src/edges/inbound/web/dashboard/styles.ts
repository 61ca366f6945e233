import { pagePolicy } from '../pages/document';
import { PAGE_STYLES } from '../pages/layout';

/**
 * The dashboard's stylesheet: the pages' own (colours, type, light and dark) and a wider shell with
 * tabs, panels, tables that stack on a phone, and form controls. No script anywhere: every page
 * works with the keyboard and without JavaScript.
 */
const DASHBOARD_STYLES = `
:root{--on-danger:#fff;--focus:#4b40d6}
@media (prefers-color-scheme:dark){:root{--on-danger:#1a0b0b;--focus:#aaa5ff}}
.skip-link{position:absolute;left:.75rem;top:-4rem;z-index:10;padding:.5rem .875rem;border-radius:.625rem;background:var(--accent);color:var(--on-accent);font-weight:650;text-decoration:none}
.skip-link:focus{top:.75rem}
.dash-shell{max-width:76rem;margin:0 auto;padding:.75rem .75rem 2rem}
.topbar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.25rem .25rem .75rem}
.topbar .brand{padding:0;text-decoration:none}
.topbar-server{display:flex;align-items:center;gap:.375rem;min-width:0;font-weight:650}
.topbar-server svg{width:1.125rem;height:1.125rem;color:var(--muted)}
.topbar-user{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .75rem;margin-left:auto;color:var(--muted);font-size:.9375rem}
.topbar-user form{display:inline}
.link-button{padding:0;border:0;background:none;color:var(--link);font:inherit;font-weight:600;text-decoration:underline;text-underline-offset:.18em;cursor:pointer}
.tabs{display:flex;flex-wrap:wrap;gap:0 .125rem;margin:0 0 1.25rem;border-bottom:1px solid var(--border)}
.tabs a{flex:none;padding:.625rem .75rem .5rem;border-bottom:3px solid transparent;color:var(--muted);font-weight:650;text-decoration:none;white-space:nowrap}
.tabs a:hover{color:var(--text)}
.tabs a[aria-current=page]{color:var(--text);border-bottom-color:var(--accent)}
main:focus{outline:none}
.page-head{margin-bottom:1rem}
.page-head p{margin-top:.25rem;color:var(--muted)}
.stack{display:grid;gap:1rem}
.cols{display:grid;gap:1rem}
.cols.filters{align-items:end}
.panel{min-width:0;padding:1rem 1.125rem 1.125rem;border-radius:1rem;background:var(--surface);border:1px solid var(--border);box-shadow:var(--shadow)}
.panel>h2{margin-bottom:.75rem;font-size:1.0625rem;font-weight:700;letter-spacing:-.01em}
.panel>h2+.hint{margin-top:-.5rem;margin-bottom:.75rem}
.hint,.muted{color:var(--muted);font-size:.9375rem}
.flash{display:flex;gap:.625rem;margin-bottom:1rem;padding:.75rem 1rem;border-radius:.875rem;background:var(--tone-bg);border:1px solid var(--tone-border);color:var(--text)}
.flash svg{width:1.25rem;height:1.25rem;margin-top:.125rem;color:var(--tone)}
.flash p+p{margin-top:.25rem}
.list{display:grid;gap:.5rem}
.item{padding:.75rem .875rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border)}
.item-head{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem}
.item-title{min-width:0;font-weight:650}
.item-text{margin-top:.25rem;color:var(--muted);font-size:.9375rem}
.item-fix{margin-top:.375rem;font-size:.9375rem}
.item .chips{margin-top:.5rem}
.item .chip{flex-wrap:wrap;row-gap:.125rem;border-radius:.75rem}
.chip>*{overflow-wrap:break-word}
.chip form{display:inline}
.chip .muted{font-size:.8125rem;font-weight:500}
.chip .link-button{font-size:.8125rem}
.filters .chips{display:flex;flex-wrap:wrap;gap:.5rem}
a.chip.filter{color:var(--text);text-decoration:none}
a.chip.filter strong{font-variant-numeric:tabular-nums}
a.chip.filter[aria-current]{background:var(--accent);border-color:var(--accent);color:var(--on-accent)}
.keys{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.625rem}
.key{display:block;padding:.75rem .875rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border);color:var(--text);text-decoration:none}
.key strong{display:block;font-size:1.5rem;font-variant-numeric:tabular-nums}
.key span{color:var(--muted);font-size:.875rem}
.join-copy{margin:.75rem 0}
.kv{display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:.375rem 1rem;font-size:.9375rem}
.kv dt{color:var(--muted)}
.kv dd{min-width:0}
table.data{width:100%;border-collapse:collapse;font-size:.9375rem;overflow-wrap:break-word}
.pill{white-space:nowrap}
table.data caption{text-align:left;color:var(--muted);font-size:.875rem;padding-bottom:.5rem}
table.data th{padding:.5rem .625rem;border-bottom:1px solid var(--border);color:var(--muted);font-size:.8125rem;font-weight:700;letter-spacing:.04em;text-align:left;text-transform:uppercase;white-space:nowrap}
table.data td{padding:.625rem;border-bottom:1px solid var(--border);vertical-align:top}
table.data td.num{text-align:right;font-variant-numeric:tabular-nums}
table.data tr:last-child td{border-bottom:0}
.table-wrap{overflow-x:auto}
.nowrap{white-space:nowrap}
form.fields{display:grid;gap:.875rem}
.field label,.field legend{display:block;margin-bottom:.25rem;font-size:.875rem;font-weight:650}
.field label.check{display:flex;margin-bottom:.375rem;font-size:.9375rem;font-weight:400}
.field .hint{margin-top:.25rem;font-size:.8125rem}
fieldset.field{margin:0;padding:0;border:0;min-width:0}
input[type=text],input[type=search],input[type=number],input[type=date],select{width:100%;min-height:2.625rem;padding:.5rem .625rem;border-radius:.625rem;border:1px solid var(--muted);background:var(--surface);color:var(--text);font:inherit}
select{text-overflow:ellipsis}
input:focus-visible,select:focus-visible,button:focus-visible,.btn:focus-visible,.tabs a:focus-visible,.link-button:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.check{display:flex;align-items:flex-start;gap:.5rem;font-size:.9375rem}
.check input{flex:none;width:1.125rem;height:1.125rem;margin:.2rem 0 0;accent-color:var(--accent)}
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:.375rem;min-height:2.625rem;padding:.5rem 1rem;border-radius:.625rem;border:1px solid transparent;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:650;text-decoration:none;cursor:pointer}
.btn:hover{background:var(--accent-hover)}
.btn.secondary{background:var(--surface);color:var(--text);border-color:var(--muted)}
.btn.secondary:hover{background:var(--surface-2)}
.btn.danger{background:var(--error);color:var(--on-danger)}
.btn svg{width:1.125rem;height:1.125rem}
a:not(.btn):not(.server):not(.brand)>svg{width:1rem;height:1rem;vertical-align:-.15em}
.pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;margin-top:1rem}
.chart svg{display:block;width:100%;height:auto}
.chart .bar-add{fill:var(--success)}
.chart .bar-remove{fill:var(--error)}
.chart .axis{stroke:var(--border)}
.chart .tick{fill:var(--muted);font:15px system-ui,sans-serif}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin-top:.5rem;font-size:.875rem;color:var(--muted)}
.swatch{display:inline-block;width:.75rem;height:.75rem;margin-right:.375rem;border-radius:.2rem;vertical-align:-.05rem}
.swatch.add{background:var(--success)}
.swatch.remove{background:var(--error)}
details summary{cursor:pointer;color:var(--link);font-weight:600}
details[open] summary{margin-bottom:.5rem}
.servers{display:grid;gap:.625rem}
.server{display:flex;align-items:center;gap:.75rem;padding:.875rem 1rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border);color:var(--text);text-decoration:none}
a.server:hover{background:var(--info-bg)}
.server>svg{width:1.25rem;height:1.25rem;margin-left:auto;color:var(--link)}
.server-mark{flex:none;display:grid;place-items:center;width:2.5rem;height:2.5rem;border-radius:.75rem;background:var(--accent);color:var(--on-accent);font-weight:750}
.server.off .server-mark{background:var(--surface);color:var(--muted);border:1px solid var(--border)}
.narrow{max-width:36rem;margin:0 auto}
main.standalone{padding-top:1rem}
@media (max-width:47.99rem){
table.data.stacked thead{display:none}
table.data.stacked tr{display:block;padding:.625rem 0;border-bottom:1px solid var(--border)}
table.data.stacked tr:last-child{border-bottom:0}
table.data.stacked td{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.75rem;padding:.1875rem 0;border:0}
table.data.stacked td.num{text-align:left}
table.data.stacked td::before{content:attr(data-label);color:var(--muted);font-size:.8125rem;font-weight:650}
table.data.compact tr{display:grid;grid-template-columns:minmax(0,1fr) auto;column-gap:.75rem}
table.data.compact td{grid-column:1/-1;grid-template-columns:minmax(0,1fr);padding:.125rem 0}
table.data.compact td.lead-cell{grid-column:1;grid-row:1}
table.data.compact td.side-cell{grid-column:2;grid-row:1}
table.data.compact td::before{content:none}
.cols.filters{grid-template-columns:repeat(2,minmax(0,1fr))}
.tabs a{padding:.5rem .625rem .375rem}
}
@media (min-width:48rem){
.dash-shell{padding:1.5rem 1.5rem 3rem}
.panel{padding:1.25rem 1.5rem 1.5rem}
.cols.two{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.cols.filters{grid-template-columns:repeat(4,minmax(0,1fr))}
.cols.form-row{grid-template-columns:minmax(0,1fr) minmax(0,1fr) auto;align-items:end}
}
@media (min-width:64rem){.cols.filters{grid-template-columns:repeat(7,minmax(0,1fr))}}
`;

export const DASHBOARD_STYLESHEET = PAGE_STYLES + DASHBOARD_STYLES;

/** Nothing but this stylesheet; forms post only to this site (the header adds: no framing). */
export const DASHBOARD_CONTENT_SECURITY_POLICY = pagePolicy(DASHBOARD_STYLESHEET);
