import { TIMELINE_MIN_WIDTH } from './timeline.js';

/** Nesting levels the page indents; deeper delegations line up with the last indented one (a 1,000-deep chain stays readable). */
export const INDENTED_LEVELS = 6;

/** `details.nested` repeated `n` times: the selector of a nested delegation at level `n` or deeper. */
const nestedAtLeast = (n: number): string => Array.from({ length: n }, () => 'details.nested').join(' ');

// Inline stylesheet: system fonts only, so the file needs no network. Status colours carry white
// text (run ids, pills, counts): each keeps a contrast of at least 4.5:1 with it (WCAG AA). Text
// drawn in a status colour (links, counts in words, the late label) takes --link/--*-fg, which
// dark mode lightens to keep 4.5:1 on its backgrounds.
export const STYLES = `
:root {
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --lane: #f6f8fa; --card: #ffffff; --page: #f3f5f7;
  --ok: #1a7f37; --bad: #cf222e; --vf: #bc4c00; --cancel: #6e7781; --pause: #8250df; --open: #0969da; --unknown: #1b7c83; --partial: #9a6700;
  --err: #cf222e; --warn: #b35900; --info: #0969da; --join: #1f2328;
  --link: #0969da; --ok-fg: #1a7f37; --bad-fg: #cf222e; --warn-fg: #b35900;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --lane: #151b23; --card: #0d1117; --page: #010409; --join: #e6edf3; --link: #4493f8; --ok-fg: #3fb950; --bad-fg: #f85149; --warn-fg: #d29922; color-scheme: dark; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 20px 24px 48px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
code { overflow-wrap: anywhere; }
a { color: var(--link); }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 17px; margin: 0 0 10px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
h3 { font-size: 14px; margin: 18px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.sub, .muted { color: var(--muted); }
.none { color: var(--muted); font-style: italic; }
header.page { margin-bottom: 16px; }
section.delegation, section.overview { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin: 0 0 18px; }
.kind { font-weight: 500; color: var(--muted); }
.did { font-size: 14px; }
.nowrap, .pill { white-space: nowrap; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; color: #fff; background: var(--unknown); }
.pill.st-completed { background: var(--ok); } .pill.st-failed { background: var(--bad); } .pill.st-verification_failed { background: var(--vf); } .pill.st-partial { background: var(--partial); }
.pill.st-unfinished, .pill.st-paused, .pill.st-waiting { background: var(--pause); } .pill.st-open { background: var(--open); } .pill.st-cancelled { background: var(--cancel); }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(270px, 100%), 1fr)); gap: 6px 18px; margin: 0; }
.facts div { min-width: 0; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.facts dd { margin: 0; }
.ok-text { color: var(--ok-fg); font-weight: 600; } .bad-text { color: var(--bad-fg); font-weight: 600; }
.count { display: inline-block; padding: 0 7px; border-radius: 4px; font-size: 12px; font-weight: 600; color: #fff; }
.count.sev-error { background: var(--err); } .count.sev-warning { background: var(--warn); } .count.sev-info { background: var(--info); } .count.ok { background: var(--ok); }
details.preview, details.events, details.outputs { margin-top: 10px; }
ul.outputs { list-style: none; padding-left: 0; } ul.outputs li { margin: 8px 0; }
.olabel { color: var(--muted); font-size: 12px; margin-top: 4px; }
pre.otext { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24em; overflow: auto; margin: 2px 0; padding: 6px 8px; border: 1px solid var(--line, #ccc); border-radius: 4px; user-select: text; }
details summary { cursor: pointer; color: var(--muted); font-size: 13px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--lane); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; max-height: 240px; overflow: auto; }
figure.timeline { margin: 14px 0 0; overflow-x: auto; container-type: inline-size; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin: 0 0 6px; padding: 0; list-style: none; }
.legend li { display: inline-flex; align-items: center; gap: 5px; }
.sw { display: inline-block; width: 18px; height: 10px; border-radius: 2px; background: var(--unknown); }
.sw.st-completed { background: var(--ok); } .sw.st-failed { background: var(--bad); } .sw.st-verification_failed { background: var(--vf); }
.sw.st-cancelled { background: var(--cancel); } .sw.st-paused { background: var(--pause); } .sw.st-open { background: linear-gradient(90deg, var(--open) 30%, rgba(9, 105, 218, .18)); }
.sw.line { width: 2px; height: 14px; border-radius: 0; background: var(--join); } .sw.line.start { background: repeating-linear-gradient(var(--muted) 0 3px, transparent 3px 6px); }
.sw.late { background: repeating-linear-gradient(45deg, var(--ok) 0 3px, #6b7a8a 3px 5px); }
/* The lane names and the SVG share one grid cell; the figure scrolls rather than shrink the SVG's text below 11 px. */
.tl { display: grid; min-width: ${TIMELINE_MIN_WIDTH}px; } .tl > * { grid-area: 1 / 1; }
svg.swimlane { display: block; width: 100%; height: auto; font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
.lane-names { position: sticky; left: 0; z-index: 1; justify-self: start; background: var(--bg); box-shadow: 1px 0 0 var(--line); font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
/* On a phone the sticky names would hide half of what is visible of the bars: at most 30% of the figure, names cut with an ellipsis (whole in their title). */
.lane-names { max-width: 30cqw; }
.lane-head, .lane-name { position: absolute; left: 0; right: 0; }
.lane-head { top: 0; display: flex; align-items: flex-end; justify-content: flex-end; padding: 0 8px 7px 0; color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .05em; }
.lane-name { background: var(--bg); } .lane-name.odd { background: var(--lane); }
.lane-bg { fill: var(--bg); } .lane.odd .lane-bg { fill: var(--lane); }
.grid { stroke: var(--line); stroke-dasharray: 2 3; }
.tick { fill: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.lane-label { position: absolute; left: 0; right: 8px; display: flex; align-items: center; justify-content: flex-end; gap: 4px; white-space: nowrap; color: var(--fg); font-weight: 600; font-size: 12.5px; }
.lane-agent { overflow: hidden; text-overflow: ellipsis; min-width: 0; } .lane-count { flex: none; }
.lane-label.missing { color: var(--muted); font-style: italic; font-weight: 400; }
.note { fill: var(--muted); font-style: italic; font-size: 12px; }
.bar { cursor: default; outline: none; }
.bar .shape { fill: var(--unknown); stroke: rgba(0,0,0,.22); stroke-width: 1; }
.bar.st-completed .shape { fill: var(--ok); } .bar.st-failed .shape { fill: var(--bad); } .bar.st-verification_failed .shape { fill: var(--vf); }
.bar.st-cancelled .shape { fill: var(--cancel); } .bar.st-paused .shape, .bar.st-waiting .shape { fill: var(--pause); } .bar.st-open .shape { fill: var(--open); }
.bar.open .shape { stroke: var(--open); stroke-dasharray: 4 3; stroke-width: 1.5; }
.fade { pointer-events: none; } .fade-stop { stop-color: var(--bg); }
.open-edge { fill: none; stroke: var(--open); stroke-width: 1.6; }
.bar:hover .shape, .bar:focus .shape, .bar.hl .shape, .bar:target .shape { stroke: var(--fg); stroke-width: 2.5; stroke-dasharray: none; }
.bar:target .shape { animation: pulse 1.2s ease-in-out 2; }
@keyframes pulse { 50% { stroke-width: 5; } }
.bar-text { fill: #fff; font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; pointer-events: none; }
.end-label { fill: var(--fg); font-size: 12px; pointer-events: none; }
.late .end-label { fill: var(--warn-fg); font-weight: 700; }
.end-label.inside, .late .end-label.inside { fill: #fff; font-weight: 600; }
.hatch { fill: rgba(20, 30, 40, .35); }
.late-part { pointer-events: none; }
.start-line line { stroke: var(--muted); stroke-width: 1.2; stroke-dasharray: 3 3; } .start-line text { fill: var(--muted); font-size: 12px; }
.join-line line { stroke: var(--join); stroke-width: 2; } .join-line text { fill: var(--join); font-weight: 700; font-size: 12px; }
.no-join { fill: var(--muted); font-style: italic; font-size: 12px; }
.retry-link path { fill: none; stroke: var(--muted); stroke-width: 1.4; } .retry-link text { fill: var(--muted); font-size: 12px; }
.arrowhead { fill: var(--muted); }
.marker line { stroke: var(--fg); stroke-width: 2; }
.badge circle { stroke: var(--bg); stroke-width: 1.5; } .badge text { fill: #fff; font-weight: 800; font-size: 12px; pointer-events: none; }
.badge.sev-error circle { fill: var(--err); } .badge.sev-warning circle { fill: var(--warn); } .badge.sev-info circle { fill: var(--info); }
.nested-span rect { fill: var(--pause); stroke: var(--bg); }
.nested-span.st-completed rect { fill: var(--ok); } .nested-span.st-failed rect { fill: var(--bad); } .nested-span.st-partial rect { fill: var(--partial); } .nested-span.st-open rect { fill: var(--open); }
ol.findings { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.finding { border-left: 4px solid var(--info); background: var(--lane); border-radius: 0 6px 6px 0; padding: 7px 10px; }
.finding.sev-error { border-color: var(--err); } .finding.sev-warning { border-color: var(--warn); }
.finding:target { outline: 2px solid var(--open); }
.finding .sev { display: inline-block; min-width: 58px; text-align: center; font-size: 11px; font-weight: 700; text-transform: uppercase; color: #fff; background: var(--info); border-radius: 4px; padding: 0 5px; }
.finding.sev-error .sev { background: var(--err); } .finding.sev-warning .sev { background: var(--warn); }
.fid { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.fline, .parent-link { overflow-wrap: anywhere; }
.fruns, .fwhere, .fhint { font-size: 12px; color: var(--muted); margin-top: 2px; overflow-wrap: anywhere; }
.run-link { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin-right: 6px; }
.none-found { color: var(--ok-fg); margin: 0; }
ul.limits { margin: 0; padding-left: 20px; color: var(--muted); font-size: 13px; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
button.sort { font: inherit; font-weight: inherit; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; text-align: inherit; } th[aria-sort="ascending"] button.sort::after { content: " \\25B2"; content: " \\25B2" / ""; } th[aria-sort="descending"] button.sort::after { content: " \\25BC"; content: " \\25BC" / ""; }
th { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
details.nested { margin-top: 16px; border-left: 3px solid var(--pause); padding-left: 12px; }
details.nested > summary { font-size: 13.5px; color: var(--fg); margin-bottom: 8px; }
details.nested section.delegation { margin-bottom: 0; }
${nestedAtLeast(INDENTED_LEVELS + 1)} { padding-left: 0; border-left: 0; }
${nestedAtLeast(INDENTED_LEVELS + 1)} > section.delegation { padding-left: 0; padding-right: 0; border-left: 0; border-right: 0; border-radius: 0; }
.empty { color: var(--muted); font-style: italic; }
#td-tip { position: fixed; z-index: 10; max-width: 440px; background: #1f2328; color: #f0f3f6; border-radius: 8px; padding: 9px 11px; font-size: 12px; box-shadow: 0 6px 24px rgba(0,0,0,.28); pointer-events: none; }
#td-tip[hidden] { display: none; }
.tip-head { display: flex; justify-content: space-between; gap: 12px; font-weight: 700; margin-bottom: 5px; }
.tip-title { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.tip-status { color: #9ecbff; font-weight: 600; }
#td-tip dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
#td-tip dt { color: #9198a1; }
#td-tip dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 9.5em; overflow: hidden; }
#td-tip dd.tip-error { color: #ffaba8; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
.table-scroll { overflow-x: auto; }
/* The table scrolls sideways on a narrow screen: an id keeps its line instead of wrapping to one character's width. */
section.overview td:first-child { white-space: nowrap; } section.overview td:first-child code { overflow-wrap: normal; }
fieldset.row-filter { border: 0; padding: 0; margin: 0 0 8px; font-size: 13px; color: var(--muted); }
fieldset.row-filter legend { float: left; margin-right: 8px; padding: 0; }
section.overview:has(#rows-error:checked) tr:is(.worst-warning, .worst-info, .worst-none):not(.holds-error),
section.overview:has(#rows-warning:checked) tr:is(.worst-info, .worst-none):not(.holds-error, .holds-warning) { display: none; }
/* Shown only as the parent of a nested row the filter shows. */
section.overview:has(#rows-error:checked) tr.holds-error:is(.worst-warning, .worst-info, .worst-none),
section.overview:has(#rows-warning:checked) tr:is(.holds-error, .holds-warning):is(.worst-info, .worst-none) { opacity: .55; }
.bar, .finding { scroll-margin: 90px 0; }
@media (prefers-reduced-motion: reduce) { .bar:target .shape { animation: none; } }
/* A page of thousands of delegations: sections off screen are not laid out until scrolled to (a
   614-delegation page loaded in 1.1 s instead of 6 s); the size of one already seen is remembered. */
main > section.delegation { content-visibility: auto; contain-intrinsic-size: auto 700px; }
@media print {
  main > section.delegation { content-visibility: visible; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .table-scroll, figure.timeline { overflow: visible; }
  .tl { min-width: 0; }
}
`;
