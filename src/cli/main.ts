import { Command, CommanderError, type Option } from 'commander';
import { InputError } from '../journal/discover.js';
import { commandHint, commandMeant, TargetError } from '../analyze.js';
import { safeTerminalText } from '../format/terminal.js';
import { VERSION } from '../version.js';
import { addCheckOptions, runCheck, type CheckFlags } from './check-command.js';
import { addScanOptions } from './common.js';
import { addContractCommand, loadContractForTrace } from './contract-command.js';
import { EXIT, UsageError, type CliIO } from './io.js';
import { doesNotApply, ownOptionsWin, rejectForeignOptions } from './option-scope.js';
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
--follow: 0 when stopped (Ctrl-C, SIGTERM), whatever it reported; 2 usage or input error.
check: 0 every case matches its X.expected.json, 1 a case does not, 2 usage or input error.
contract validate: 0 no finding at or above --fail-on (by default: a valid plan), 1 such findings,
2 a plan that cannot be read, or a usage error.`;

function buildProgram(io: CliIO, result: { code: number }): Command {
  const program = new Command('trace-delegation');
  program
    .description('Rebuild and check agent delegations from Astra session journals.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    // commander's own errors read like ours: "trace-delegation: unknown option '--bogus'".
    // Its "(Did you mean --all?)" line is folded into the sentence, as `chek` gets (usage errors are one line).
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: (s, write) => write(`trace-delegation: ${oneSentence(s)}`) })
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

  addScanOptions(program.command('list').description('table of recent delegations, newest first (exit 1 when one shown has a finding at or above --fail-on)'), false)
    .option('--limit <n>', 'how many delegations (default 20)')
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
  // Commander answers a group without its subcommand (`contract`) with the whole help on stderr.
  program.on('beforeAllHelp', ({ error, command }: { error: boolean; command: Command }) => {
    if (!error || !command.commands.length) return;
    const name = command.name();
    throw new UsageError(`${name} needs a subcommand: ${command.commands.map((c) => c.name()).join(', ')} (trace-delegation help ${name})`);
  });

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

  clearerSubcommandErrors(program);
  return program;
}

/**
 * Subcommand errors in the tool's words: an option given after a subcommand that has no use for
 * it (`list --all`, `rules --limit 5`) is said to be that, as it is before the subcommand, not
 * "unknown"; a missing argument names what it is and where its help is.
 */
function clearerSubcommandErrors(program: Command): void {
  const visit = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      const here = [...path, sub.name()];
      const output = sub.configureOutput();
      sub.configureOutput({
        ...output,
        outputError: (s, write) => {
          // Commander's bare "missing required argument 'plan'" says neither what the argument is nor where to read more.
          const missing = /^error: missing required argument '([^']+)'/.exec(s)?.[1];
          const argument = missing ? sub.registeredArguments.find((a) => a.name() === missing) : undefined;
          if (argument) return write(`trace-delegation: ${here.join(' ')} needs ${argument.variadic ? `one or more ${missing}` : `a ${missing}`}: ${argument.description} (trace-delegation help ${here.join(' ')})\n`);
          // Commander's bare "unknown command 'foo'" says neither which group it was looked up in nor what it has.
          const word = /^error: unknown command '([^']+)'/.exec(s)?.[1];
          if (word !== undefined) return write(`trace-delegation: ${unknownSubcommand(sub, here, word, s)}\n`);
          const flag = /^error: unknown option '([^']+)'/.exec(s)?.[1];
          const root = flag && flag !== '--version' && flag !== '-V' ? optionNamed(program, flag) : undefined;
          const owners = flag && !root ? program.commands.filter((c) => c !== sub && optionNamed(c, flag)) : [];
          if (root) write(`trace-delegation: ${doesNotApply(root.long ?? root.flags, here)}\n`);
          else if (owners.length) {
            const long = optionNamed(owners[0], flag!)!.long ?? flag!;
            write(`trace-delegation: ${long} is an option of ${owners.map((c) => c.name()).join(' and ')}, not of ${here.join(' ')} (trace-delegation ${owners[0].name()} ${long} …)\n`);
          } else output.outputError!(s, write);
        },
      });
      visit(sub, here);
    }
  };
  visit(program, []);
}

/** `contract foo`: what the group has (or the one meant) and where its help is. */
function unknownSubcommand(group: Command, here: readonly string[], word: string, commanderText: string): string {
  const meant = /\(Did you mean (.+)\?\)/.exec(commanderText)?.[1];
  const has = group.commands.map((c) => c.name()).join(', ');
  return `${here.join(' ')} has no subcommand ${word}${meant ? `; did you mean ${meant}?` : `: it has ${has}`} (trace-delegation help ${here.join(' ')})`;
}

/** Commander's error text as one line: `unknown option '--al'; did you mean --all?`. */
function oneSentence(s: string): string {
  return s
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.+)\?\)\n?$/, '; did you mean $1?\n')
    .replace(/^(too many arguments.*)\. Expected (.+)\.(\n?)$/, '$1: expected $2$3')
    // `list <id>` is a report of <id> asked the wrong way round.
    .replace(/^(too many arguments for 'list': .*?)(\n?)$/, '$1 (list takes no target; to report one delegation: trace-delegation <id>)$2');
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

/** Every option word any command knows, mapped to whether a value follows it (`--limit 5`). */
function allOptions(program: Command): Map<string, boolean> {
  const out = new Map<string, boolean>([['--help', false], ['-h', false]]);
  const visit = (cmd: Command) => {
    for (const o of cmd.options) for (const f of [o.long, o.short]) if (f) out.set(f, out.get(f) || o.required || o.optional);
    cmd.commands.forEach(visit);
  };
  visit(program);
  return out;
}

/**
 * The argv for commander when the words ask for help (`help [command [subcommand]]`, also after
 * options and as `contract help validate`), null otherwise. Options of the tool anywhere are
 * ignored, values and all (`help list --limit 5`); an unknown one is a usage error. Commander's
 * own help command would print the root help for an unknown command, on stderr without a word.
 */
function helpArgv(words: readonly string[], program: Command): string[] | null {
  const options = allOptions(program);
  const names: string[] = [];
  let unknown: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--') {
      names.push(...words.slice(i + 1));
      break;
    }
    if (!w.startsWith('-') || w === '-') {
      names.push(w);
      continue;
    }
    const flag = w.startsWith('--') ? w.split('=')[0] : w.slice(0, 2);
    const takesValue = options.get(flag);
    if (takesValue === undefined) unknown ??= flag;
    // `--limit 5`, not `--limit=5` nor `-n5`.
    else if (takesValue && !w.includes('=') && (w.startsWith('--') || w.length === 2)) i++;
  }
  const groups = new Set(program.commands.filter((c) => c.commands.length > 0).map((c) => c.name()));
  // `contract help validate` is `help contract validate`.
  if (names[0] !== undefined && groups.has(names[0]) && names[1] === 'help') names.splice(0, 2, 'help', names[0]);
  if (names[0] !== 'help') return null;
  while (names[1] === 'help') names.splice(1, 1); // `help help list` is `help list`
  if (unknown) throw new UsageError(`help: unknown option ${unknown} (trace-delegation help [command [subcommand]])`);
  const [, command, sub, extra] = names;
  if (command === undefined) return ['--help'];
  const commands = program.commands.map((c) => c.name());
  const parent = program.commands.find((c) => c.name() === command);
  if (!parent) throw new UsageError(`help: unknown command ${command} (commands: ${[...commands, 'help'].join(', ')})`);
  if (sub === undefined || sub === 'help') return [command, '--help'];
  const subcommands = parent.commands.map((c) => c.name());
  if (!subcommands.includes(sub))
    throw new UsageError(subcommands.length ? `help: unknown command ${command} ${sub} (${command} has: ${subcommands.join(', ')})` : `help: ${command} has no subcommands (trace-delegation help ${command})`);
  if (extra !== undefined) throw new UsageError(`help takes a command and a subcommand at most, not ${extra} (trace-delegation help ${command} ${sub})`);
  return [command, sub, '--help'];
}

/** Runs the CLI and returns its exit code; it never calls process.exit and never throws. */
export async function main(io: CliIO): Promise<number> {
  const result = { code: EXIT.ok as number };
  const program = buildProgram(io, result);
  try {
    const words = io.argv;
    const commands = [...new Set([...program.commands.map((c) => c.name()), 'help'])];
    // A mistyped command with its arguments (`chek fixtures`, also after options: `--demo chek
    // fixtures`) would be commander's bare "too many arguments".
    const [word, next] = positionals(words, program);
    const meant = !commands.includes(word ?? '') ? commandMeant(word) : undefined;
    if (meant && next !== undefined) throw new UsageError(`unknown command ${word}; did you mean ${meant}? (trace-delegation ${meant} --help)`);
    const argv = helpArgv(words, program) ?? subcommandOptionsAfterIt(words, program);
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


