import { Command, CommanderError, type Option } from 'commander';
import { InputError } from '../journal/discover.js';
import { commandHint, commandMeant, TargetError } from '../analyze.js';
import { safeTerminalText } from '../format/terminal.js';
import { VERSION } from '../version.js';
import { addCheckOptions, runCheck, type CheckFlags } from './check-command.js';
import { addScanOptions } from './common.js';
import { addContractCommand, loadContractForTrace } from './contract-command.js';
import { EXIT, UsageError, type CliIO } from './io.js';
import { ownOptionsWin, rejectForeignOptions } from './option-scope.js';
import { runList, type ListFlags } from './list-command.js';
import { runReport, type ReportFlags } from './report-command.js';
import { runRules } from './rules-command.js';

/** An ambiguous prefix lists this many candidates: a short prefix can match thousands. */
const MAX_CANDIDATES_SHOWN = 20;

const HELP_FOOTER = `
Targets: a delegation id, a unique prefix of one, a parent run id, a session id, or last
(the default). Use - or --stdin to read one journal from standard input.

Environment: ASTRA_SESSIONS_DIR (the default --sessions), TRACE_DELEGATION_NOW (--now),
NO_COLOR and TERM=dumb (no colour), TRACE_DELEGATION_DEBUG=1 (a stack trace with an internal
error).

Exit codes: 0 no finding at or above --fail-on, 1 such findings, 2 usage, input or output error
(list too: it exits 1 when a delegation it shows has such a finding).
check: 0 every case matches its X.expected.json, 1 a case does not, 2 usage or input error.
contract validate: 0 a valid plan, 1 findings at or above --fail-on, 2 a plan that cannot be read.`;

function buildProgram(io: CliIO, result: { code: number }): Command {
  const program = new Command('trace-delegation');
  program
    .description('Rebuild and check agent delegations from Astra session journals.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    // commander's own errors read like ours: "trace-delegation: unknown option '--bogus'".
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: (s, write) => write(`trace-delegation: ${s.replace(/^error: /, '')}`) })
    .showSuggestionAfterError(true)
    // Subcommands repeat the scan options; without this the program would take `list --sessions x`.
    .enablePositionalOptions()
    .addHelpText('after', HELP_FOOTER);
  // `trace-delegation help [command]`, as `contract help` has (commander's help command).
  program.helpCommand('help [command]', 'show help for a command');

  addScanOptions(program.argument('[target]', 'delegation id, prefix, parent run id, session id, or last'))
    .option('--all', 'report every delegation found')
    .option('-f, --format <name>', 'output format: text, json, ndjson, markdown, sarif, junit, github, html, otlp, chrome-trace', 'text')
    .option('-o, --output <format=file>', 'also write a format to a file (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--no-color', 'never colour the output (NO_COLOR is honoured too)')
    .option('-q, --quiet', 'no progress output (nor the --follow notice)')
    .option('--follow', 'replay the journals, then watch them: print each delegation when it completes (Ctrl-C to stop)')
    .option('--jobs <n>', 'threads for large scans, 1 to 64 (default: one less than the cores, 1 to 4)')
    .option('--contract <plan>', 'hold the delegation to a contract plan (YAML or JSON): adds contract-… findings')
    .action(async (target: string | undefined, flags: ReportFlags & { contract?: string }) => {
      const contract = flags.contract !== undefined ? await loadContractForTrace(flags.contract, io) : {};
      result.code = await runReport(target, flags, io, contract);
    });

  addScanOptions(program.command('list').description('table of recent delegations, newest first (exit 1 when one shown has a finding at or above --fail-on)'))
    .option('--limit <n>', 'how many delegations', '20')
    .option('--events', 'print the event listing: ts | type | delegation id prefix | run id | file:line')
    .option('-f, --format <name>', 'text (a table; delegation ids cut, and a cut one works as a target) or json (whole ids, for jq)', 'text')
    .option('--no-color', 'accepted for scripts that pass it to every command: the table has no colour')
    .option('-q, --quiet', 'no progress output')
    .option('--jobs <n>', 'threads for large scans, 1 to 64 (default: one less than the cores, 1 to 4)')
    .action(async (_flags: ListFlags, cmd: Command) => {
      // Scan options given before `list` (trace-delegation --demo list) count too; its own win.
      result.code = await runList(ownOptionsWin<ListFlags>(cmd), io);
    });

  addCheckOptions(program.command('check').description('compare findings with the X.expected.json beside each journal file or session folder X'))
    .argument('<paths...>', 'fixture folders, journal files, session folders or expectations files')
    .action(async (paths: string[], _flags: CheckFlags, cmd: Command) => {
      // Options given before `check` (trace-delegation --now … check fixtures) count too; its own win.
      result.code = await runCheck(paths, ownOptionsWin<CheckFlags>(cmd), io);
    });

  addContractCommand(program, io, result);

  program
    .command('rules')
    .description('list every check: id, default severity, description')
    .option('--json', 'as JSON')
    .option('--no-color', 'accepted for scripts that pass it to every command: the list has no colour')
    .option('-q, --quiet', 'accepted for scripts that pass it to every command: rules has no progress output')
    .action((flags: { json?: boolean }, cmd: Command) => {
      rejectForeignOptions(cmd);
      result.code = runRules(io, !!flags.json);
    });

  return program;
}

/** The first two words that are not options or option values, as the root command reads them (before `--`). */
function positionals(words: readonly string[], program: Command): string[] {
  const takesValue = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)));
  const out: string[] = [];
  for (let i = 0; i < words.length && out.length < 2; i++) {
    const w = words[i];
    if (w === '--') return [...out, ...words.slice(i + 1)].slice(0, 2);
    if (w.startsWith('-') && w !== '-') {
      if (!w.includes('=') && takesValue.has(w)) i++;
      continue;
    }
    out.push(w);
  }
  return out;
}

/** The option of `cmd` a command-line word names (`--limit`, `--limit=2`, `-f`), if any. */
function optionNamed(cmd: Command, word: string): Option | undefined {
  const flag = word.startsWith('--') ? word.split('=')[0] : word;
  return cmd.options.find((o) => o.long === flag || o.short === flag);
}

/**
 * Options only a subcommand has, given before it (`--limit 2 list`, `--update check x`), moved
 * just after it, where commander looks for them: options before a subcommand count for it
 * (README, Usage). Options the root command knows stay where they are (option-scope.ts judges
 * them), as do unknown ones (commander's error names them). One no following command has is
 * a usage error that names the commands that have it (commander would call it unknown).
 */
function subcommandOptionsAfterIt(words: readonly string[], program: Command): readonly string[] {
  const before: string[] = [];
  const moved: { words: string[]; owners: Command[] }[] = [];
  const misplaced = (sub?: Command) => {
    const wrong = moved.find((m) => !sub || !m.owners.includes(sub));
    if (!wrong) return;
    const flag = wrong.words[0].split('=')[0];
    const owners = wrong.owners.map((c) => c.name());
    throw new UsageError(`${flag} is an option of ${owners.join(' and ')}${sub ? `, not of ${sub.name()}` : ''} (trace-delegation ${owners[0]} ${flag} …)`);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--') break;
    if (!w.startsWith('-') || w === '-') {
      if (!moved.length) return words;
      const sub = program.commands.find((c) => c.name() === w);
      misplaced(sub);
      return [...before, w, ...moved.flatMap((m) => m.words), ...words.slice(i + 1)];
    }
    const root = optionNamed(program, w);
    const owners = root ? [] : program.commands.filter((c) => optionNamed(c, w));
    const option = root ?? (owners.length ? optionNamed(owners[0], w) : undefined);
    // `--limit 2`, not `--limit=2` nor `-f<value>`.
    const valueFollows = !!option && (option.required || option.optional) && !w.includes('=') && (w.startsWith('--') || w.length === 2);
    const taken = valueFollows && i + 1 < words.length ? [w, words[++i]] : [w];
    if (owners.length) moved.push({ words: taken, owners });
    else before.push(...taken);
  }
  misplaced();
  return words;
}

/** Runs the CLI and returns its exit code; it never calls process.exit and never throws. */
export async function main(io: CliIO): Promise<number> {
  const result = { code: EXIT.ok as number };
  const program = buildProgram(io, result);
  try {
    // commander's help command prints the whole root help for a command it does not know.
    // `help help …` is `help …`.
    let words = io.argv;
    while (words[0] === 'help' && words[1] === 'help') words = words.slice(1);
    // `help --help` is the root help, `help -h list` list's (commander would call -h an unknown command, on stderr).
    if (words[0] === 'help' && (words[1] === '--help' || words[1] === '-h')) words = words.length > 2 ? ['help', ...words.slice(2)] : ['--help'];
    // `contract help validate` (options before it too) is `help contract validate`, with the same message for an unknown one.
    const groups = new Set(program.commands.filter((c) => c.commands.length > 0).map((c) => c.name()));
    const [groupWord, helpWord] = positionals(words, program);
    const at = groupWord !== undefined && groups.has(groupWord) && helpWord === 'help' ? words.indexOf('help', words.indexOf(groupWord) + 1) : -1;
    if (at >= 0 && words[at + 1] !== undefined) words = ['help', groupWord!, ...words.slice(at + 1)];
    const [first, second] = words;
    const commands = [...new Set([...program.commands.map((c) => c.name()), 'help'])];
    if (first === 'help' && second !== undefined && !second.startsWith('-') && !commands.includes(second)) throw new UsageError(`help: unknown command ${second} (commands: ${commands.join(', ')})`);
    // `help --json`: commander would print the root help on stderr and exit 2 without a word.
    if (first === 'help' && second !== undefined && second.startsWith('-') && second !== '--help' && second !== '-h') throw new UsageError(`help takes a command name, not ${second} (trace-delegation help [command], or trace-delegation [command] --help)`);
    // A mistyped command with its arguments (`chek fixtures`, also after options: `--demo chek
    // fixtures`) would be commander's bare "too many arguments".
    const [word, next] = positionals(words, program);
    const meant = !commands.includes(word ?? '') ? commandMeant(word) : undefined;
    if (meant && next !== undefined) throw new UsageError(`unknown command ${word}; did you mean ${meant}? (trace-delegation ${meant} --help)`);
    const third = words[2];
    const parent = program.commands.find((c) => c.name() === second);
    if (first === 'help' && parent && third !== undefined && third !== 'help' && !third.startsWith('-')) {
      const subcommands = parent.commands.map((c) => c.name());
      if (!subcommands.includes(third))
        throw new UsageError(subcommands.length ? `help: unknown command ${second} ${third} (${second} has: ${subcommands.join(', ')})` : `help: ${second} has no subcommands (trace-delegation help ${second})`);
    }
    // `help contract validate` is validate's help (commander's would be contract's).
    const nested = first === 'help' && second !== undefined && third !== undefined && third !== 'help';
    const argv = nested ? [second, third, '--help'] : first === 'help' && third === 'help' ? ['help', second] : subcommandOptionsAfterIt(words, program);
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; commander already printed its own usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // Messages quote what the user typed and what journals hold: escape sequences are shown, not run.
    if (err instanceof TargetError) {
      io.stderr.write(`trace-delegation: ${safeTerminalText(err.message)}\n`);
      for (const c of err.candidates.slice(0, MAX_CANDIDATES_SHOWN)) io.stderr.write(`  ${safeTerminalText(c)}\n`);
      const more = err.candidates.length - MAX_CANDIDATES_SHOWN;
      if (more > 0) io.stderr.write(`  … and ${more} more (a longer prefix narrows it; \`trace-delegation list\` lists delegations)\n`);
      return EXIT.usage;
    }
    if (err instanceof UsageError || err instanceof InputError) {
      // `lsit` with no journals yet: the missing root is the error, the command meant the hint.
      const hint = err instanceof InputError && / does not exist/.test(err.message) ? commandHint(io.argv[0]) : '';
      io.stderr.write(`trace-delegation: ${safeTerminalText(err.message)}${hint}\n`);
      return EXIT.usage;
    }
    const debug = (io.env ?? process.env).TRACE_DELEGATION_DEBUG;
    io.stderr.write(`trace-delegation: internal error: ${(err as Error)?.message ?? String(err)}${debug ? `\n${(err as Error)?.stack}` : ' (set TRACE_DELEGATION_DEBUG=1 for details)'}\n`);
    return EXIT.usage;
  }
}


