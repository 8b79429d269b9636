#!/usr/bin/env node
// `npm run bench`: generates (or reuses) the deterministic corpus, then measures side by side,
// several rounds, in rotating order: the tool (--all --format json with the default threads, the
// other of one or two threads, and every event in memory; and last), the seed skill's Python scan (baseline), grep
// (raw-scan floor), the Node floor (bench/node_floor.mjs --lean: the least a Node scan costs, one
// thread and every core) and BENCHMARKS.md's reference Node scan (one thread). Prints medians, ratios, peak RSS and the issue's targets, checked, and
// what JSON.stringify of the printed report costs alone.
//
//   node bench/run.js [--sizes 1,4] [--quick] [--reps N] [--seed N] [--delete-corpus] [--json FILE]
//   node bench/run.js --summary bench/results/results-<time>.json   (print a saved run again)
//   node bench/run.js --history   (one line per saved run: the targets' ratios over time)
//
// --sizes   corpus sizes in GiB (default 1,4; with --quick: 1). 4 GiB takes ~4 GiB of disk and
//           a few minutes to generate the first time; corpora live in bench/corpus/ (gitignored)
//           and are reused while the generator and its parameters are unchanged.
// --quick   fewer rounds (3) and, unless --sizes is given, only 1 GiB.
// --reps    rounds per command (default 5).
// --delete-corpus  remove the corpora after measuring (they are kept by default).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureCorpus } from './corpus.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const BIN = path.join(ROOT, 'bin', 'trace-delegation.cjs');
const CORPUS_ROOT = path.join(HERE, 'corpus');
const GNU_TIME = '/usr/bin/time';

function parseArgs(argv) {
  const args = { sizes: null, quick: false, reps: null, seed: 42, deleteCorpus: false, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--sizes') args.sizes = value().split(',').map(Number);
    else if (a === '--quick') args.quick = true;
    else if (a === '--reps') args.reps = Number(value());
    else if (a === '--seed') args.seed = Number(value());
    else if (a === '--delete-corpus') args.deleteCorpus = true;
    else if (a === '--json') args.json = value();
    else if (a === '--summary') args.summary = value();
    else if (a === '--history') args.history = true;
    else if (a === '--help' || a === '-h') {
      const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
      console.log(lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n')); // the header comment
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  args.sizes ??= args.quick ? [1] : [1, 4];
  args.reps ??= args.quick ? 3 : 5;
  if (args.sizes.some((s) => !(s > 0)) || !(args.reps >= 1)) throw new Error('--sizes must be positive numbers and --reps at least 1');
  return args;
}

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.jsonl(\.gz)?$/.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs one command: wall time from spawn to exit, peak RSS from GNU time (or, for node, from
 * process.resourceUsage() at exit through a preloaded module). stdout goes to /dev/null or is
 * drained from a pipe (grep must write to a pipe: with /dev/null it stops at the first match).
 */
function measure(cmd) {
  return new Promise((resolve, reject) => {
    const rssFile = path.join(scratch, `rss-${process.hrtime.bigint()}`);
    let file = cmd.file;
    let args = cmd.args;
    const env = { ...process.env, NO_COLOR: '1', ...cmd.env };
    if (hasGnuTime) {
      args = ['-f', '%M %U %S', '-o', rssFile, file, ...args];
      file = GNU_TIME;
    } else if (cmd.node) {
      args = ['--import', path.join(HERE, 'maxrss.mjs'), ...args];
      env.BENCH_RSS_FILE = rssFile;
    }
    const devnull = openSync('/dev/null', 'w');
    const began = process.hrtime.bigint();
    const child = spawn(file, args, { stdio: ['ignore', cmd.pipe ? 'pipe' : devnull, 'pipe'], env, cwd: ROOT });
    let outBytes = 0;
    let stderr = '';
    const keep = [];
    child.stdout?.on('data', (d) => {
      outBytes += d.length;
      if (cmd.keepOutput) keep.push(d);
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      closeSync(devnull);
      if (code !== 0 && !(cmd.okCodes ?? [0]).includes(code)) return reject(new Error(`${cmd.name} exited ${code}: ${stderr.slice(0, 500)}`));
      let rssKb = null;
      let cpuSeconds = null;
      try {
        const [kb, user, system] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
        rssKb = kb;
        if (Number.isFinite(user) && Number.isFinite(system)) cpuSeconds = user + system;
        rmSync(rssFile);
      } catch {
        // no RSS for non-node commands without GNU time
      }
      resolve({ seconds, rssMb: rssKb ? rssKb / 1024 : null, cpuSeconds, outBytes, output: cmd.keepOutput ? Buffer.concat(keep).toString() : null });
    });
  });
}

function commandsFor(corpus, plainFiles, plainBytes, threads) {
  const node = process.execPath;
  const nodeScan = (role, name, n, mode, note) => ({ role, name, note, file: node, node: true, args: [path.join(HERE, 'node_floor.mjs'), String(n), mode, ...plainFiles], pipe: true, bytes: plainBytes });
  const tool = (role, name, extra, note) => ({ role, name, note, file: node, node: true, args: [BIN, '--sessions', corpus.dir, '--quiet', '--fail-on', 'none', ...extra], bytes: corpus.bytes });
  // The other thread count: one thread where the default uses several, two where it uses one.
  const other = threads > 1 ? 1 : 2;
  return [
    tool('full', 'trace-delegation --all --format json', ['--all', '--format', 'json'], `full scan and report of every delegation (default: ${threads} ${threads === 1 ? 'thread' : 'threads'} here)`),
    { ...tool('full-jobs', `  … with --jobs ${other}`, ['--all', '--format', 'json', '--jobs', String(other)], `the same, ${other} ${other === 1 ? 'thread' : 'threads'}`), jobs: other, defaultJobs: threads },
    { ...tool('full-memory', '  … every event in memory', ['--all', '--format', 'json'], 'the same without the event index (TRACE_DELEGATION_INDEXED=0), for comparison'), env: { TRACE_DELEGATION_INDEXED: '0' } },
    tool('last', 'trace-delegation last', ['last', '--format', 'json'], 'recent-first'),
    { role: 'baseline', name: 'python3 baseline_scan.py', note: 'the seed skill\'s scan (json.loads on every line)', file: 'python3', args: [path.join(HERE, 'baseline_scan.py'), corpus.dir], pipe: true, bytes: plainBytes },
    { role: 'floor', name: "grep -c -F '\"delegation_' (floor)", note: 'plain files, output to a pipe', file: 'grep', args: ['-c', '-F', '"delegation_', ...plainFiles], pipe: true, okCodes: [1], bytes: plainBytes },
    // The Node floor (lean: line split and byte pre-filter, as the tool scans) on one thread and
    // on every core, and BENCHMARKS.md's reference script (indexOf of the needle) on one.
    ...[1, cpus().length].filter((n, i, a) => a.indexOf(n) === i).map((n) => nodeScan(n === 1 ? 'node-floor-1' : 'node-floor', `node floor, ${n} ${n === 1 ? 'thread' : 'threads'}`, n, '--lean', 'line split + byte pre-filter + JSON.parse of the candidate lines, no report (plain files)')),
    nodeScan('node-reference', 'node reference scan, 1 thread', 1, '--reference', 'BENCHMARKS.md reference script: indexOf of the needle + JSON.parse, no report (plain files)'),
  ];
}

/** Seconds JSON.stringify(report, null, 2) takes here: the report's serialization alone. */
function timeStringify(report) {
  const began = process.hrtime.bigint();
  JSON.stringify(report, null, 2);
  return Number(process.hrtime.bigint() - began) / 1e9;
}

const fmt = (n, d = 2) => (n === null || n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(d));

function table(rows) {
  const head = ['size', 'command', 'median s', 'CPU s', 'MB/s', 'vs baseline', 'vs floor', 'peak RSS MB'];
  const body = rows.map((r) => [`${r.size} GiB`, r.name, fmt(r.median, 3), fmt(r.cpu, 2), fmt(r.mbps, 0), r.vsBaseline, r.vsFloor, fmt(r.rssMb, 0)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (i === 1 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n');
}

/** Role of a saved command (runs saved before roles were recorded are matched by name). */
function roleOf(c) {
  // Runs saved before the lean floor existed measured only the reference script, as "node floor".
  if (c.role?.startsWith('node-floor') && c.note?.startsWith('BENCHMARKS.md reference scan')) return c.role === 'node-floor-1' ? 'node-reference' : 'node-reference-n';
  if (c.role && c.role !== 'full-j1') return c.role;
  if (c.role === 'full-j1' || c.name.includes('--jobs 1')) return 'full-jobs'; // runs saved before --jobs 2 was measured
  if (c.name.includes('--jobs')) return 'full-jobs';
  if (c.name.includes('in memory')) return 'full-memory';
  if (c.name.includes('last')) return 'last';
  if (c.name.startsWith('python3')) return 'baseline';
  if (c.name.startsWith('grep')) return 'floor';
  return 'full';
}

/** A steal share above this is said to stretch the wall times. */
const STEAL_NOTED = 0.05;

/** The machine's CPU counters (Linux /proc/stat, in clock ticks): all time, and the time stolen by the hypervisor. Null elsewhere. */
function cpuTicks() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

/** A command whose rounds' quartiles differ by more than this was measured on a busy machine. */
const NOISY_SPREAD = 0.15;

/** A command's name in the table; runs saved before the lean floor called the reference script "node floor". */
const nameOf = (c) => (roleOf(c).startsWith('node-reference') ? c.name.replace(/^node floor/, 'node reference scan') : c.name);

/** Two scan threads against one, whichever of them is the default here. */
function threadsLine(other, defaultSeconds) {
  const jobs = other.jobs ?? 1;
  const defaults = other.defaultJobs ?? null;
  const [one, two] = jobs === 1 ? [other.median, defaultSeconds] : [defaultSeconds, other.median];
  const label = defaults === null ? 'default threads' : jobs === 1 ? `the default ${defaults} threads` : `${jobs} threads (the default here is ${defaults})`;
  return `${label} ${fmt(one / two, 2)}× as fast as one`;
}

/** The table and the issue's targets, checked on the measured figures. */
function summarize(results) {
  const pick = (s, role) => s.commands.find((c) => roleOf(c) === role);
  const rows = [];
  for (const s of results.sizes) {
    const baseline = pick(s, 'baseline').median;
    const floor = pick(s, 'floor').median;
    for (const c of s.commands) {
      const bytes = c.bytes ?? (['baseline', 'floor'].includes(roleOf(c)) ? c.plainBytes ?? s.corpus.bytes : s.corpus.bytes);
      rows.push({ size: s.sizeGiB, name: nameOf(c), median: c.median, mbps: bytes / 1e6 / c.median, vsBaseline: roleOf(c) === 'baseline' ? '1.0×' : `${fmt(baseline / c.median, 1)}× faster`, vsFloor: `${fmt(c.median / floor, 1)}×`, rssMb: c.peakRssMb, cpu: c.cpuSeconds?.length ? median(c.cpuSeconds) : null });
    }
  }
  console.log(`\n${table(rows)}\n`);
  console.log('Medians of the rounds; CPU s = user + system seconds of the process and its threads; "vs baseline" = baseline time / time; "vs floor" = time / grep time; peak RSS = the largest of the rounds.');
  // On a shared VM the hypervisor may give this guest's cores to others ("steal"): wall times then stretch while CPU times hold.
  for (const s of results.sizes) {
    if (s.stealShare === undefined || s.stealShare === null) continue;
    const pct = s.stealShare * 100;
    console.log(`${s.sizeGiB} GiB: CPU steal during the rounds ${fmt(pct, 1)}% of the machine's time${pct > STEAL_NOTED * 100 ? ' (other guests used this VM\'s cores: wall times are stretched, the CPU seconds less so; compare ratios, or measure again when calm)' : ''}`);
  }
  // This VM is shared: say how calm the rounds were, so a noisy run is read as one.
  for (const s of results.sizes) {
    // Upper over lower quartile (nearest rank): one slow round alone does not make a run noisy.
    const spread = (c) => {
      const t = [...(c?.seconds ?? [])].sort((x, y) => x - y);
      return t.length > 2 ? t[Math.ceil(t.length * 0.75) - 1] / t[Math.floor(t.length * 0.25)] - 1 : null;
    };
    const worst = Math.max(...s.commands.map(spread).filter((x) => x !== null));
    const parts = ['full', 'baseline', 'floor'].map((role) => {
      const x = spread(pick(s, role));
      return `${role} ${x === null ? 'n/a (fewer than 3 rounds)' : `${fmt(x * 100, 0)}%`}`;
    });
    console.log(`${s.sizeGiB} GiB: rounds spread (upper / lower quartile − 1): ${parts.join(', ')}${worst > NOISY_SPREAD ? ` (up to ${fmt(worst * 100, 0)}%: a busy machine; read the ratios, not the times, and measure again when calm)` : ''}`);
  }
  for (const s of results.sizes)
    for (const c of s.commands)
      if (c.failures?.length) console.log(`${s.sizeGiB} GiB: ${c.name.trim()} FAILED in ${c.failures.length} of ${c.failures.length + c.seconds.length} rounds (medians of the others): ${c.failures[0].split('\n')[0]}`);
  console.log('grep and the Python baseline read only the plain .jsonl files (the seed scan skips archives); the tool also inflates the .jsonl.gz ones.\n');
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  for (const s of results.sizes) {
    const m = (role) => pick(s, role).median;
    const full = pick(s, 'full').stats;
    const last = pick(s, 'last').stats;
    if (full && last)
      console.log(`${s.sizeGiB} GiB: last read ${last.files} of ${full.files} files (${fmt(last.bytes / 1e6, 0)} of ${fmt(full.bytes / 1e6, 0)} MB); in-process analysis time (stats.durationMs, no Node start-up): last ${last.durationMs} ms, full ${full.durationMs} ms = ${fmt((last.durationMs / full.durationMs) * 100, 1)}%; full report ${fmt(pick(s, 'full').outputBytes / 1e6, 0)} MB of JSON for ${full.events} delegation events`);
    const reference = pick(s, 'node-reference');
    if (reference) console.log(`${s.sizeGiB} GiB: ${nameOf(reference)} (BENCHMARKS.md's, no report) ${fmt(reference.median, 3)} s = ${fmt(m('baseline') / reference.median, 1)}× faster than the baseline, ${fmt(reference.median / m('floor'), 2)}× grep`);
    const floors = [pick(s, 'node-floor-1'), pick(s, 'node-floor')].filter(Boolean);
    if (floors.length) {
      // The least any Node tool can take here: the faster floor scan, plus the report's serialization shared perfectly over every core.
      const nodeFloor = floors.reduce((a, b) => (b.median < a.median ? b : a));
      const cores = results.cores ?? 1;
      const least = nodeFloor.median + (s.stringifySeconds ?? 0) / cores;
      console.log(
        `${s.sizeGiB} GiB: ${nodeFloor.name} (no grouping, checks or report) ${fmt(nodeFloor.median, 3)} s = ${fmt(m('baseline') / nodeFloor.median, 1)}× faster than the baseline` +
          (s.stringifySeconds !== undefined && s.stringifySeconds !== null ? `; JSON.stringify of the printed report alone ${fmt(s.stringifySeconds, 3)} s on one thread; together, split perfectly over ${cores} cores, ≥ ${fmt(least, 3)} s` : '') +
          ` against budgets of ${fmt(m('baseline') / 8, 3)} s (8× the baseline) and ${fmt(m('floor') * 3, 3)} s (3× grep)`,
      );
    }
    console.log(`${s.sizeGiB} GiB: full scan+report ${fmt(m('baseline') / m('full'), 1)}× faster than the baseline (target ≥ 8×: ${verdict(m('baseline') / m('full') >= 8)}); ${fmt(m('full') / m('floor'), 2)}× the grep floor (target ≤ 3×: ${verdict(m('full') / m('floor') <= 3)}); last takes ${fmt((m('last') / m('full')) * 100, 1)}% of a full scan (target < 10%: ${verdict(m('last') / m('full') < 0.1)}); ${threadsLine(pick(s, 'full-jobs'), m('full'))}`);
  }
  const bySize = new Map(results.sizes.map((s) => [s.sizeGiB, s]));
  if (bySize.has(1) && bySize.has(4)) {
    for (const role of ['full', 'full-jobs', 'full-memory', 'last']) {
      const one = pick(bySize.get(1), role);
      const four = pick(bySize.get(4), role);
      const a = one?.peakRssMb;
      const b = four?.peakRssMb;
      // Each round's peak too (runs saved since the ninth pass): the ratio of two maxima moves with one round.
      const rounds = one?.rssMb && four?.rssMb ? `; rounds ${one.rssMb.map((x) => fmt(x, 0)).join('/')} and ${four.rssMb.map((x) => fmt(x, 0)).join('/')} MB` : '';
      if (a && b) console.log(`peak RSS of ${one.name.trim()}: ${fmt(a, 0)} MB at 1 GiB, ${fmt(b, 0)} MB at 4 GiB = ${fmt(b / a, 3)}× (target ≤ 1.2× and < 250 MB: ${verdict(b / a <= 1.2 && b < 250)})${rounds}`);
    }
  }
}

/** One line per saved run in bench/results/: each size's full run against the baseline and grep, `last`'s share, and the memory ratio. */
function history() {
  const dir = path.join(HERE, 'results');
  console.log('run (UTC)        | size: --all s, × faster than baseline, × grep, last %, peak MB | RSS 4 GiB / 1 GiB');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const r = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
    const cells = [];
    const fullBySize = new Map();
    for (const s of r.sizes) {
      const m = (role) => s.commands.find((c) => roleOf(c) === role);
      const [full, baseline, floor, last] = [m('full'), m('baseline'), m('floor'), m('last')];
      if (!full || !baseline || !floor) continue;
      fullBySize.set(s.sizeGiB, full);
      cells.push(`${s.sizeGiB} GiB: ${fmt(full.median)} s, ${fmt(baseline.median / full.median, 1)}×, ${fmt(full.median / floor.median, 1)}×, ${last ? `${fmt((last.median / full.median) * 100, 1)}%` : 'n/a'}, ${fmt(full.peakRssMb, 0)} MB`);
    }
    const [one, four] = [fullBySize.get(1), fullBySize.get(4)];
    const memory = one?.peakRssMb && four?.peakRssMb ? fmt(four.peakRssMb / one.peakRssMb, 3) : 'n/a';
    console.log(`${r.when.slice(0, 16).replace('T', ' ')} | ${cells.join(' | ')} | ${memory}`);
  }
}

const args = parseArgs(process.argv.slice(2));
if (args.history) {
  history();
  process.exit(0);
}
if (args.summary) {
  summarize(JSON.parse(readFileSync(args.summary, 'utf8')));
  process.exit(0);
}
const hasGnuTime = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true']).status === 0;
const scratch = mkdtempSync(path.join(tmpdir(), 'td-bench-'));
const log = (s) => process.stderr.write(`${s}\n`);
if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('build first: npm run build (npm run bench does it)');

log(`trace-delegation benchmark: sizes ${args.sizes.join(', ')} GiB, ${args.reps} rounds, ${cpus().length} cores, node ${process.version}, peak RSS via ${hasGnuTime ? '/usr/bin/time' : 'process.resourceUsage()'}`);
// The tool's default thread count on this machine (dist/ is built: checked above).
const { defaultJobs } = await import(pathToFileURL(path.join(ROOT, 'dist', 'journal', 'parallel.js')).href);
const threads = defaultJobs();
const results = { when: new Date().toISOString(), node: process.version, cores: cpus().length, defaultJobs: threads, rounds: args.reps, sizes: [] };
for (const size of args.sizes) {
  log(`\n== ${size} GiB corpus`);
  const corpus = ensureCorpus({ root: CORPUS_ROOT, sizeGiB: size, seed: args.seed, log });
  log(`${corpus.reused ? 'reusing' : 'generated'} ${corpus.dir}: ${corpus.files} files (${corpus.gzipped} gzipped), ${(corpus.bytes / 1e6).toFixed(0)} MB, ${corpus.lines} lines, ${((corpus.delegationLines / corpus.lines) * 100).toFixed(1)}% delegation events`);
  const files = listFiles(corpus.dir);
  const plainFiles = files.filter((f) => f.endsWith('.jsonl'));
  const plainBytes = plainFiles.reduce((n, f) => n + statSync(f).size, 0);
  const cmds = commandsFor(corpus, plainFiles, plainBytes, threads);
  const times = new Map(cmds.map((c) => [c.name, []]));
  const rss = new Map(cmds.map((c) => [c.name, []]));
  const cpu = new Map(cmds.map((c) => [c.name, []]));
  const failures = new Map();
  log('warm-up (page cache, one untimed run each)…');
  const output = new Map();
  for (const c of cmds) output.set(c.name, (await measure({ ...c, pipe: true })).outBytes);
  const ticksBefore = cpuTicks();
  for (let round = 0; round < args.reps; round++) {
    // Rotate the order each round so drift on a shared machine hits every command alike.
    const order = cmds.map((_, i) => cmds[(i + round) % cmds.length]);
    const failedNow = new Set();
    for (const c of order) {
      let m;
      try {
        m = await measure(c);
      } catch (err) {
        // A crash is a finding, not the end of the run: said here, counted in the saved results.
        log(`round ${round + 1}: ${c.name.trim()} FAILED: ${String(err.message).split('\n').slice(0, 3).join(' ')}`);
        failures.set(c.name, [...(failures.get(c.name) ?? []), String(err.message).slice(0, 2000)]);
        failedNow.add(c.name);
        continue;
      }
      times.get(c.name).push(m.seconds);
      if (m.rssMb !== null) rss.get(c.name).push(m.rssMb);
      if (m.cpuSeconds !== null) cpu.get(c.name).push(m.cpuSeconds);
    }
    log(`round ${round + 1}/${args.reps}: ${cmds.map((c) => `${c.role} ${failedNow.has(c.name) ? 'FAILED' : `${fmt(times.get(c.name).at(-1), 2)}s`}`).join(', ')}`);
  }
  const ticksAfter = cpuTicks();
  const stealShare = ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total ? (ticksAfter.steal - ticksBefore.steal) / (ticksAfter.total - ticksBefore.total) : null;
  // The tool's own stats (files read, in-process time), from one more untimed run each.
  const stats = new Map();
  let stringifySeconds = null;
  for (const c of cmds.filter((x) => x.node && !x.role.startsWith('node-'))) {
    let report;
    try {
      report = JSON.parse((await measure({ ...c, pipe: true, keepOutput: true })).output);
    } catch (err) {
      log(`${c.name.trim()}: the untimed run for its stats FAILED: ${String(err.message).split('\n')[0]}`);
      continue;
    }
    stats.set(c.name, report.stats);
    // What serializing the printed report costs by itself, on one thread (the tool streams it, but writes the same bytes).
    if (c.role === 'full') stringifySeconds = median([0, 1, 2].map(() => timeStringify(report)));
  }
  const med = (name) => median(times.get(name));
  const sizeResult = { sizeGiB: size, stringifySeconds, stealShare, corpus: { files: corpus.files, gzipped: corpus.gzipped, bytes: corpus.bytes, lines: corpus.lines, delegationLines: corpus.delegationLines }, commands: [] };
  for (const c of cmds) {
    const peak = rss.get(c.name).length ? Math.max(...rss.get(c.name)) : null;
    sizeResult.commands.push({ role: c.role, name: c.name, note: c.note, jobs: c.jobs, defaultJobs: c.defaultJobs, bytes: c.bytes, seconds: times.get(c.name), median: med(c.name), peakRssMb: peak, rssMb: rss.get(c.name), cpuSeconds: cpu.get(c.name), outputBytes: output.get(c.name), stats: stats.get(c.name) ?? null, failures: failures.get(c.name) ?? [] });
  }
  results.sizes.push(sizeResult);
}

summarize(results);
// Kept beside the code (bench/results/, committed), so a figure a doc cites can be printed again.
const out = args.json ?? path.join(HERE, 'results', `results-${results.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(results, null, 2));
log(`\nraw figures: ${path.relative(ROOT, out)}`);
if (args.deleteCorpus) for (const s of args.sizes) for (const d of readdirSync(CORPUS_ROOT)) if (d.startsWith(`corpus-${s}g-`)) rmSync(path.join(CORPUS_ROOT, d), { recursive: true, force: true });
rmSync(scratch, { recursive: true, force: true });
