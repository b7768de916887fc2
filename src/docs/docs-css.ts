// Styles of the gateway's own pages (navigation bar, release timeline, comparison), served as docs/docs.css.
// Kept in a module rather than a .css file so the compiled program carries it (tsc copies no assets).
export const DOCS_CSS = `
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; background: #fff; }
.gw-nav { display: flex; gap: 1.2em; align-items: baseline; flex-wrap: wrap; padding: .7em 1.5em; background: #1b2a3a; color: #fff; }
.gw-nav strong { margin-right: 1em; }
.gw-nav a { color: #cfe3ff; text-decoration: none; }
.gw-nav a[aria-current="page"] { color: #fff; border-bottom: 2px solid #7fb8ff; }
main { max-width: 1150px; margin: 0 auto; padding: 1em 1.5em 3em; }
h1 { font-size: 1.6em; margin: .6em 0 .2em; }
h2 { font-size: 1.25em; margin: 0; }
h3 { font-size: 1em; margin: .8em 0 .3em; }
.muted { color: #5b6570; }
form.compare { display: flex; gap: .8em; align-items: end; flex-wrap: wrap; padding: .8em 1em; background: #f3f6f9; border: 1px solid #d8dee4; border-radius: 6px; margin: 1em 0; }
form.compare label { display: flex; flex-direction: column; font-size: .85em; color: #444; }
form.compare select, form.compare button { font: inherit; padding: .25em .4em; }
ol.timeline { list-style: none; padding: 0; margin: 1em 0; border-left: 3px solid #c9d6e3; }
ol.timeline > li { position: relative; margin: 0 0 1.2em; padding: .2em 0 0 1.2em; }
ol.timeline > li::before { content: ""; position: absolute; left: -9px; top: .55em; width: 13px; height: 13px; border-radius: 50%; background: #7fb8ff; border: 2px solid #fff; }
ol.timeline > li.pinned::before { background: #1f883d; }
.release-head { display: flex; gap: .8em; align-items: baseline; flex-wrap: wrap; }
.badge { font-size: .75em; padding: .1em .5em; border-radius: 1em; background: #e6eef7; color: #234; }
.badge.pinned { background: #1f883d; color: #fff; }
.sev-breaking { color: #b42318; font-weight: 600; }
.sev-warning { color: #9a6700; font-weight: 600; }
.sev-info { color: #445; }
ul.changes { margin: .3em 0 .3em 1.2em; padding: 0; }
ul.changes li { margin: .1em 0; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f4f6; padding: 0 .25em; border-radius: 3px; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; margin: 1em 0; }
.side { border: 1px solid #d8dee4; border-radius: 6px; padding: .6em 1em; background: #fafbfc; }
table.diff { border-collapse: collapse; width: 100%; margin: .5em 0 1.5em; font-size: .92em; }
table.diff th, table.diff td { border: 1px solid #d8dee4; padding: .3em .5em; text-align: left; vertical-align: top; }
table.diff th { background: #f3f6f9; }
table.diff td.from { background: #fff5f5; }
table.diff td.to { background: #f3fbf4; }
.error { padding: .8em 1em; background: #fff5f5; border: 1px solid #f0b4b4; border-radius: 6px; }
`;
