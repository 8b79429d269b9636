// The page's only script: hover cards for bars, finding → bar highlighting, and sorting the
// overview's columns. It reads the escaped JSON block and data attributes and writes with
// textContent only, so journal text is never parsed as HTML. Without it the page is complete:
// the overview stays in start order.
import { createHash } from 'node:crypto';

export const CLIENT_SCRIPT = `(function () {
  'use strict';
  var dataEl = document.getElementById('td-tips');
  var tips = dataEl ? JSON.parse(dataEl.textContent || '{}') : {};
  var card = document.getElementById('td-tip');
  var bars = document.querySelectorAll('.bar[data-tip]');
  for (var i = 0; i < bars.length; i++) {
    var t = bars[i].querySelector('title');
    if (t) { bars[i].setAttribute('aria-label', t.textContent); t.parentNode.removeChild(t); }
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fill(tip) {
    while (card.firstChild) card.removeChild(card.firstChild);
    var head = el('div', 'tip-head');
    head.appendChild(el('span', 'tip-title', tip.title));
    head.appendChild(el('span', 'tip-status', tip.status));
    card.appendChild(head);
    var dl = el('dl');
    for (var i = 0; i < tip.rows.length; i++) {
      dl.appendChild(el('dt', '', tip.rows[i][0]));
      dl.appendChild(el('dd', tip.rows[i][0] === 'error' ? 'tip-error' : '', tip.rows[i][1]));
    }
    card.appendChild(dl);
  }
  function place(x, y) {
    var w = card.offsetWidth, h = card.offsetHeight;
    var left = x + 14, top = y + 14;
    if (left + w > window.innerWidth - 8) left = Math.max(8, x - w - 14);
    if (top + h > window.innerHeight - 8) top = Math.max(8, y - h - 14);
    card.style.left = left + 'px';
    card.style.top = top + 'px';
  }
  function show(bar, x, y) {
    var tip = tips[bar.getAttribute('data-tip')];
    if (!tip || !card) return;
    fill(tip);
    card.hidden = false;
    place(x, y);
  }
  function hide() { if (card) card.hidden = true; }
  function barOf(target) { return target && target.closest ? target.closest('.bar[data-tip]') : null; }
  document.addEventListener('mouseover', function (ev) {
    var bar = barOf(ev.target);
    if (bar) show(bar, ev.clientX, ev.clientY);
    var f = ev.target.closest ? ev.target.closest('.finding[data-bars]') : null;
    if (f) highlight(f, true);
  });
  document.addEventListener('mousemove', function (ev) { if (card && !card.hidden && barOf(ev.target)) place(ev.clientX, ev.clientY); });
  document.addEventListener('mouseout', function (ev) {
    if (barOf(ev.target) && !barOf(ev.relatedTarget)) hide();
    var f = ev.target.closest ? ev.target.closest('.finding[data-bars]') : null;
    if (f) highlight(f, false);
  });
  document.addEventListener('focusin', function (ev) {
    var bar = barOf(ev.target);
    if (!bar) return;
    var r = bar.getBoundingClientRect();
    show(bar, r.left + Math.min(r.width, 40), r.bottom);
  });
  document.addEventListener('focusout', hide);
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') hide(); });
  // Overview sorting: a header becomes a button; rows move in groups (an outer delegation and the
  // nested ones under it), ordered by the outer row's key, or the group's worst findings.
  var table = document.querySelector('table.sortable');
  if (table) {
    var heads = table.querySelectorAll('th[data-sort]');
    for (var h = 0; h < heads.length; h++) {
      var th = heads[h];
      var button = el('button', 'sort');
      button.type = 'button';
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener('click', sortBy.bind(null, th));
    }
  }
  function sortBy(th) {
    var key = th.getAttribute('data-sort');
    var numeric = th.hasAttribute('data-numeric');
    var current = th.getAttribute('aria-sort');
    var dir = current === 'ascending' ? 'descending' : current === 'descending' ? 'ascending' : (th.getAttribute('data-first') || 'ascending');
    var body = table.tBodies[0];
    var groups = [];
    var byId = {};
    var rows = body.rows;
    for (var i = 0; i < rows.length; i++) {
      var g = rows[i].getAttribute('data-group');
      // data-group numbers the groups in start order: ties keep it, whatever the previous sort did.
      if (!byId[g]) { byId[g] = { rows: [], key: null, at: Number(g) }; groups.push(byId[g]); }
      var v = rows[i].getAttribute('data-k-' + key) || '';
      var k = numeric ? (v === '' ? null : Number(v)) : v;
      var grp = byId[g];
      if (grp.rows.length === 0 || (key === 'findings' && k !== null && (grp.key === null || k > grp.key))) grp.key = k;
      grp.rows.push(rows[i]);
    }
    var sign = dir === 'ascending' ? 1 : -1;
    groups.sort(function (a, b) {
      // Rows without a value go last either way; ties keep start order.
      if (a.key === null || a.key === '') return b.key === null || b.key === '' ? a.at - b.at : 1;
      if (b.key === null || b.key === '') return -1;
      var c = numeric ? a.key - b.key : String(a.key).localeCompare(String(b.key));
      return c ? sign * c : a.at - b.at;
    });
    for (var j = 0; j < groups.length; j++) for (var r = 0; r < groups[j].rows.length; r++) body.appendChild(groups[j].rows[r]);
    var all = table.querySelectorAll('th[data-sort]');
    for (var a = 0; a < all.length; a++) all[a].removeAttribute('aria-sort');
    th.setAttribute('aria-sort', dir);
  }
  function highlight(f, on) {
    var ids = (f.getAttribute('data-bars') || '').split(' ');
    for (var i = 0; i < ids.length; i++) {
      var b = ids[i] && document.getElementById(ids[i]);
      if (b) b.classList.toggle('hl', on);
    }
  }
})();`;

/** CSP hash of the script, so the page runs it and nothing else (defence in depth). */
export const CLIENT_SCRIPT_HASH = `sha256-${createHash('sha256').update(CLIENT_SCRIPT, 'utf8').digest('base64')}`;
