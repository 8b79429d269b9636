#!/usr/bin/env node
// Differential harness: generates a journal tree per seed (gen.mjs) and asks the CLI the same
// question along every road that must agree; prints a minimal repro for each disagreement.
//   node test/differential/run.mjs <fromSeed> [toSeed]     (TD_CLI=<bin> to test another build)
// Exit 0 when every road agreed, 1 otherwise. See test/differential/README.md.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { generateTree, rng } from './gen.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const DEFAULT_CLI = resolve(process.env.TD_CLI ?? join(here, '../../bin/trace-delegation.cjs'));

/** Runs the CLI at `bin`; returns { code, out, err }. */
function runCli(bin, args, { env = {}, input } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input,
    env: { ...process.env, NO_COLOR: '1', TRACE_DELEGATION_DEBUG: '1', ...env },
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  return { code: r.status, out: r.stdout.toString('utf8'), err: r.stderr.toString('utf8') };
}

function json(r, what) {
  if (r.code !== 0 && r.code !== 1) throw new Error(`${what}: exit ${r.code}: ${r.err.trim().split('\n')[0]}`);
  try {
    return JSON.parse(r.out);
  } catch {
    throw new Error(`${what}: output is not JSON: ${r.out.slice(0, 200)}`);
  }
}

const zeroDuration = (doc) => (doc?.stats ? { ...doc, stats: { ...doc.stats, durationMs: 0 } } : doc);

/** First differing line of two pretty JSON texts, with a little context. */
function diff(a, b) {
  const x = (typeof a === 'string' ? a : JSON.stringify(a, null, 1)).split('\n');
  const y = (typeof b === 'string' ? b : JSON.stringify(b, null, 1)).split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const ctx = (ls) => ls.slice(Math.max(0, i - 3), i + 3).map((l) => `    ${l.slice(0, 220)}`).join('\n');
  return `  at line ${i + 1}:\n  --- expected\n${ctx(x)}\n  +++ got\n${ctx(y)}`;
}

/** A journal line the reader takes whole: no Limits line names the file it is in. */
function wholeEvent(line) {
  let e;
  try {
    e = JSON.parse(line.replace(/^\ufeff/, ''));
  } catch {
    return false;
  }
  if (!e || typeof e !== 'object' || Array.isArray(e) || typeof e.ts !== 'string' || Number.isNaN(Date.parse(e.ts))) return false;
  if (!/^(delegation|Delegation|sync|Sync|session_end|SessionEnd)/.test(String(e.type))) return true;
  const m = e.metadata;
  return !!m && typeof m === 'object' && !Array.isArray(m) && (m.delegation_id === undefined || typeof m.delegation_id === 'string');
}

/**
 * A report of the tree with `file` cut into `file.gz` (its first k lines) and `file` (the rest),
 * written as if of the uncut tree: paths under root2 put under root, line numbers of the cut
 * file's second part shifted by k, its archive's named as the file's.
 */
function mapBack(doc, { root2, root, file, k }) {
  const gz = `${file}.gz`;
  const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const inText = (s) =>
    s
      .replace(new RegExp(`${esc(gz)}:(\\d+)`, 'g'), (_, n) => `\u0000:${n}`)
      .replace(new RegExp(`${esc(file)}(:| goes on to line )(\\d+)`, 'g'), (_, sep, n) => `${file}${sep}${Number(n) + k}`)
      .replace(new RegExp(`${esc(gz)}`, 'g'), file)
      .replace(/\u0000/g, file)
      .split(root2)
      .join(root);
  const walk = (v, key) => {
    if (typeof v === 'string') return inText(v);
    if (Array.isArray(v)) {
      const out = v.map((x) => walk(x));
      return key === 'files' ? [...new Set(out)] : out; // a file list names the pair once
    }
    if (v && typeof v === 'object') {
      const out = {};
      for (const [name, x] of Object.entries(v)) out[name] = walk(x, name);
      if (typeof v.file === 'string' && typeof v.line === 'number' && v.file === file) out.line = v.line + k;
      return out;
    }
    return v;
  };
  return walk(doc);
}

/**
 * An open delegation whose session "goes on" after it: the line cited is the last of the part of
 * a rotated pair that holds its last event (the archive's last line, or the .jsonl's), both true;
 * the cause must agree, not the line.
 */
function goesOnLoosely(doc) {
  const GOES_ON = /(engine error) \((?:[^()]| \(.*?\))*?(goes on)[^)]*\)/;
  for (const d of doc.delegations)
    for (const f of d.findings)
      if (GOES_ON.test(f.message)) {
        f.message = f.message.replace(GOES_ON, '$1 ($2 …)');
        f.evidence = ['(the line it goes on to)'];
      }
  return doc;
}

/** Checks that may differ when `last` or `list` read the newest files only (performance.md, "Limits of the shortcut"). */
const CROSS_CHECKS = new Set(['foreign-parent', 'failed-in-aggregate', 'retry-after-unknown']);
const SUBSET_LIMIT = /^last read \d+ of \d+ journal files/;

/** A list row as `list --format json` should derive it from a report block. */
function rowOf(d) {
  const count = (sev) => d.findings.filter((f) => f.severity === sev).length;
  return {
    key: d.key,
    id: d.id,
    startedTs: d.startedTs,
    pattern: d.pattern,
    parentRunId: d.parentRunId,
    agents: d.agents,
    succeeded: d.status.succeeded,
    failed: d.status.failed,
    status: d.completedTs === null ? 'open' : d.status.aggregated,
    findings: { error: count('error'), warning: count('warning'), info: count('info') },
    files: d.files,
  };
}

/** Every comparison for one seed; returns the disagreements found (strings). */
export function checkSeed(seed, { cli: CLI = DEFAULT_CLI, maxTargets = 8, only = null, keep = false, log = () => {} } = {}) {
  /** Roads: all (the three --all runs), targets, last, list, one-file (--stdin, gzip), pair. */
  const on = (road) => !only || only.includes(road);
  const cli = (args, o) => runCli(CLI, args, o);
  const dir = mkdtempSync(join(tmpdir(), `td-diff-${seed}-`));
  const root = join(dir, 'sessions');
  const problems = [];
  try {
    const tree = generateTree(seed, root);
    const base = ['--sessions', root, '--now', tree.now, '--format', 'json', '--fail-on', 'none', '-q'];
    const shown = (args, env = '') => `${env}node ${CLI} ${args.map((a) => (a.startsWith(root) ? a.replace(root, '$ROOT') : /[\s#×]/.test(a) ? `'${a}'` : a)).join(' ')}`;
    const report = (road, args, expected, got, env) =>
      problems.push(`seed ${seed} [${road}]:\n  ROOT=/tmp/td-seed-${seed}; node ${join(here, 'gen.mjs')} ${seed} $ROOT\n  ${shown(args, env)}\n${diff(expected, got)}`);

    // 1. The whole tree three ways: indexed (default), every event in memory, on threads.
    const allArgs = [...base, '--all'];
    const all = zeroDuration(json(cli(allArgs), '--all'));
    const allText = JSON.stringify(all, null, 1);
    const roads = [
      ['in-memory', allArgs, { TRACE_DELEGATION_INDEXED: '0' }, 'TRACE_DELEGATION_INDEXED=0 '],
      ['threads', [...allArgs, '--jobs', '2'], { TRACE_DELEGATION_MIN_PARALLEL_BYTES: '0' }, 'TRACE_DELEGATION_MIN_PARALLEL_BYTES=0 '],
    ];
    for (const [road, args, env, envText] of roads) {
      const other = JSON.stringify(zeroDuration(json(cli(args, { env }), road)), null, 1);
      if (other !== allText) report(road, args, allText, other, envText);
    }
    const byKey = new Map(all.delegations.map((d) => [d.key, d]));
    /** The same command with every event in memory and on threads: the same exit code and document. */
    const twins = (road, args, r) => {
      const norm = (x) => {
        try {
          return `exit ${x.code}\n${x.code === 2 ? x.err : JSON.stringify(zeroDuration(JSON.parse(x.out)), null, 1)}`;
        } catch {
          return `exit ${x.code}\n${x.out}${x.err}`;
        }
      };
      for (const [name, extra, env, envText] of roads) {
        const other = cli([...args, ...extra.slice(allArgs.length)], { env });
        if (norm(other) !== norm(r)) report(`${road}-${name}`, [...args, ...extra.slice(allArgs.length)], norm(r), norm(other), envText);
      }
    };
    log(`seed ${seed}: ${all.delegations.length} delegations, ${tree.files.length} files, ${tree.faults.join(',')}`);

    // 2. Named targets: each delegation (a sample) by its key, and a parent run, a session and an
    // id prefix: the blocks --all has for them (the matches plus their nested ones), in its order.
    const R = rng(seed);
    if (on('targets')) {
      const keys = all.delegations.map((d) => d.key);
      while (keys.length > maxTargets) keys.splice(Math.floor(R.next() * keys.length), 1);
      const withTree = (match) => {
        const out = new Set();
        const add = (d) => {
          if (!d || out.has(d.key)) return;
          out.add(d.key);
          for (const k of d.nested) add(byKey.get(k));
        };
        for (const d of all.delegations) if (match(d)) add(d);
        return all.delegations.filter((d) => out.has(d.key)).map((d) => d.key);
      };
      const targets = keys.map((key) => ({ road: 'target', query: key, want: withTree((d) => d.key === key || d.id === key) }));
      const startedBlocks = all.delegations.filter((d) => d.startedTs !== null && d.parentRunId !== null);
      if (startedBlocks.length) {
        const run = startedBlocks[Math.floor(R.next() * startedBlocks.length)].parentRunId;
        // An orphan's parent runs are those its sub-run starts name: it may match too.
        targets.push({ road: 'target-parent-run', query: run, want: withTree((d) => d.parentRunId === run), orphansMay: true });
      }
      const sessionOf = (file) => basename(file).replace(/\.jsonl(\.gz)?$/, '');
      const sids = [...new Set(all.delegations.flatMap((d) => d.sessions))].filter((x) => !all.delegations.some((d) => d.id === x || d.key === x || d.parentRunId === x));
      if (sids.length) {
        const sid = sids[Math.floor(R.next() * sids.length)];
        targets.push({ road: 'target-session', query: sid, want: withTree((d) => d.sessions.includes(sid) || d.files.some((f) => sessionOf(f) === sid)) });
      }
      if (all.delegations.length) {
        const id = all.delegations[Math.floor(R.next() * all.delegations.length)].id;
        const prefix = id.slice(0, 6);
        const ids = new Set(all.delegations.filter((d) => d.id.startsWith(prefix)).map((d) => d.id));
        const exact = all.delegations.some((d) => d.id === prefix || d.key === prefix || d.parentRunId === prefix || d.sessions.includes(prefix));
        if (!exact) targets.push({ road: 'target-prefix', query: prefix, want: ids.size === 1 ? withTree((d) => d.id.startsWith(prefix)) : null });
      }
      for (const { road, query, want, orphansMay } of targets) {
        const args = [...base, query];
        const r = cli(args);
        if (road !== 'target' || query === targets[0].query) twins(road, args, r);
        if (want === null) {
          if (r.code !== 2 || !/ambiguous|matches/.test(r.err)) report(road, args, 'exit 2: an ambiguous prefix', `exit ${r.code}: ${r.err.trim()}`);
          continue;
        }
        if (r.code === 2) {
          report(road, args, `a report of ${want.join(', ')}`, `exit 2: ${r.err.trim()}`);
          continue;
        }
        const doc = json(r, `target ${query}`);
        let got = doc.delegations.map((d) => d.key);
        if (orphansMay) got = got.filter((k) => want.includes(k) || byKey.get(k)?.startedTs !== null);
        if (JSON.stringify(want) !== JSON.stringify(got)) {
          report(`${road}-keys`, args, want, got);
          continue;
        }
        for (const d of doc.delegations) {
          const a = JSON.stringify(byKey.get(d.key), null, 1);
          const b = JSON.stringify(d, null, 1);
          if (a !== b) {
            report(`${road}-block`, args, a, b);
            break;
          }
        }
      }
    }

    // 3. last: the newest delegation_started of --all (its block, modulo the subset's documented limits).
    const started = all.delegations.filter((d) => d.startedTs !== null);
    if (on('last')) {
      const args = [...base, 'last'];
      const r = cli(args);
      twins('last', args, r);
      if (started.length === 0) {
        if (r.code !== 2) report('last', args, 'exit 2 (no delegation_started)', `exit ${r.code}`);
      } else if (r.code === 2) report('last', args, `a report of ${started.at(-1).key}`, `exit 2: ${r.err.trim()}`);
      else {
        const doc = json(r, 'last');
        const newest = started.at(-1);
        const subset = doc.limits.some((l) => SUBSET_LIMIT.test(l));
        log(`  last: ${subset ? 'newest files only' : 'whole tree'}`);
        const first = doc.delegations.find((d) => d.key === newest.key || (subset && d.id === newest.id && d.startedTs === newest.startedTs));
        if (!first) report('last-newest', args, newest.key, doc.delegations.map((d) => d.key));
        else {
          const wantTree = new Set();
          const addTree = (k) => {
            if (wantTree.has(k) || !byKey.has(k)) return;
            wantTree.add(k);
            for (const n of byKey.get(k).nested) addTree(n);
          };
          addTree(newest.key);
          if (!subset) {
            const gotKeys = doc.delegations.map((d) => d.key).sort();
            if (JSON.stringify(gotKeys) !== JSON.stringify([...wantTree].sort())) report('last-keys', args, [...wantTree].sort(), gotKeys);
            else
              for (const d of doc.delegations) {
                const a = JSON.stringify(byKey.get(d.key), null, 1);
                const b = JSON.stringify(d, null, 1);
                if (a !== b) {
                  report('last-block', args, a, b);
                  break;
                }
              }
          } else {
            const loose = (d) => ({ ...d, key: null, parentDelegation: null, nested: null, findings: d.findings.filter((f) => !CROSS_CHECKS.has(f.id)).map((f) => ({ ...f, delegation: null })), limits: d.limits.filter((l) => !/saw only the files read|reused|files read/.test(l)) });
            const a = JSON.stringify(loose(newest), null, 1);
            const b = JSON.stringify(loose(first), null, 1);
            if (a !== b) report('last-block-subset', args, a, b);
          }
        }
      }
    }

    // 4. list: rows derived from --all, newest first.
    for (const limit of on('list') ? [3, 1000] : []) {
      const args = [...base.filter((a) => a !== '--fail-on' && a !== 'none'), 'list', '--limit', String(limit), '--fail-on', 'none'];
      const r = cli(args);
      if (limit === 3) twins('list', args, r);
      const doc = json(r, 'list');
      const rows = all.delegations.map(rowOf).reverse().slice(0, limit);
      const subset = doc.total === null;
      log(`  list --limit ${limit}: ${subset ? 'newest files only' : 'whole tree'}`);
      const loose = (row) => (subset ? { ...row, key: row.id, findings: null } : row);
      const a = JSON.stringify(rows.map(loose), null, 1);
      const b = JSON.stringify(doc.delegations.map(loose), null, 1);
      if (a !== b) report(`list-${limit}`, args, a, b);
    }

    // 5. One journal: --sessions <file>, --stdin, and the same file gzipped.
    const plain = tree.files.filter((f) => f.plain);
    const picks = plain.length <= 2 ? plain : [plain[Math.floor(R.next() * plain.length)], plain[Math.floor(R.next() * plain.length)]];
    const gzDir = join(dir, 'gz');
    mkdirSync(gzDir, { recursive: true });
    for (const f of on('one-file') ? new Set(picks) : []) {
      const file = join(root, f.rel);
      const one = ['--now', tree.now, '--format', 'json', '--fail-on', 'none', '-q', '--all'];
      const norm = (doc, name) => JSON.stringify(zeroDuration(doc), null, 1).split(JSON.stringify(name).slice(1, -1)).join('<journal>');
      const viaFile = norm(json(cli(['--sessions', file, ...one]), 'file'), file);
      const viaStdin = norm(json(cli(['--stdin', ...one], { input: readFileSync(file) }), 'stdin'), '<stdin>');
      if (viaFile !== viaStdin) report('stdin', ['--stdin', ...one, '<', file.replace(root, '$ROOT')], viaFile, viaStdin);
      const gz = join(gzDir, `${basename(file)}.gz`);
      writeFileSync(gz, gzipSync(readFileSync(file)));
      const viaGz = norm(json(cli(['--sessions', gz, ...one]), 'gz'), gz);
      if (viaFile !== viaGz) report('gzip', ['--sessions', `${file.replace(root, '$ROOT')}.gz (gzip of it)`, ...one], viaFile, viaGz);
      const viaGzStdin = norm(json(cli(['--stdin', ...one], { input: readFileSync(gz) }), 'gzip stdin'), '<stdin>');
      if (viaFile !== viaGzStdin) report('gzip-stdin', ['--stdin', ...one, '<', `${file.replace(root, '$ROOT')}.gz (gzip of it)`], viaFile, viaGzStdin);
    }

    // 6. The whole tree with one journal cut into a rotated pair (<sid>.jsonl.gz holding its first
    // k lines, <sid>.jsonl the rest): the --all report, with evidence mapped back to the one file.
    // A journal with no other file of its session (an archive, a copy in the other layout): which
    // file a repeated line is counted on would move with the cut.
    const sidOf = (rel) => basename(rel).replace(/\.jsonl(\.gz)?$/, '');
    const whole = plain.filter((f) => tree.files.filter((g) => sidOf(g.rel) === sidOf(f.rel)).length === 1);
    if (whole.length && on('pair')) {
      const f = whole[Math.floor(R.next() * whole.length)];
      const file = join(root, f.rel);
      const bytes = readFileSync(file);
      const text = bytes.toString('latin1');
      const ends = [];
      for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) ends.push(i + 1);
      // Cut after a run of whole JSON lines, so the archive holds nothing a Limits line would name.
      const clean = ends.filter((end, i) => wholeEvent(bytes.subarray(i ? ends[i - 1] : 0, end).toString('utf8')));
      // And only a journal without damage: a Limits line names the files of a delegation's events,
      // and a cut moves those between the two parts.
      // Nor one with a line written twice: split over the pair, the copy would be dropped as the archive's.
      const lines = text.split('\n');
      const good = clean.length === ends.length && text.endsWith('\n') && new Set(lines).size === lines.length ? ends.length : 0;
      log(`  rotated pair: ${good >= 2 ? f.rel : 'no journal without damage'}`);
      if (good >= 2) {
        const k = Math.floor(R.next() * (good - 1)) + 1;
        const cut = ends[k - 1];
        const root2 = join(dir, 'pair');
        cpSync(root, root2, { recursive: true, preserveTimestamps: true });
        const file2 = join(root2, f.rel);
        writeFileSync(`${file2}.gz`, gzipSync(bytes.subarray(0, cut)));
        writeFileSync(file2, bytes.subarray(cut));
        const args = ['--sessions', root2, ...base.slice(2), '--all'];
        const pairDoc = zeroDuration(json(cli(args), 'pair'));
        const back = mapBack(pairDoc, { root2, root, file: file2, k });
        const a = JSON.stringify(goesOnLoosely({ ...all, stats: { ...all.stats, files: 0 } }), null, 1);
        const b = JSON.stringify(goesOnLoosely({ ...back, stats: { ...back.stats, files: 0 } }), null, 1);
        if (a !== b) report('rotated-pair', args, a, b, `(${f.rel} cut after line ${k} into ${f.rel}.gz + ${f.rel}) `);
      }
    }
  } catch (e) {
    problems.push(`seed ${seed} [crash]: ${e.message}`);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const from = Number(process.argv[2] ?? 1);
  const to = Number(process.argv[3] ?? from);
  if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) {
    console.error('usage: node test/differential/run.mjs <fromSeed> [toSeed]');
    process.exit(2);
  }
  let failed = 0;
  for (let s = from; s <= to; s++) {
    const problems = checkSeed(s, { maxTargets: Number(process.env.TD_MAX_TARGETS ?? 8), keep: process.env.TD_KEEP === '1', log: process.env.TD_VERBOSE ? (m) => console.error(m) : undefined });
    if (problems.length) failed++;
    for (const p of problems) console.log(p + '\n');
  }
  console.log(`${to - from + 1 - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
