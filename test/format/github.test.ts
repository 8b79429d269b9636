import { describe, expect, it } from 'vitest';
import { HOSTILE_TEXT, RETRY_AND_FAILURE, SAMPLE, reportFor, runFormat } from './ci-run.js';

const COMMAND = /^::(error|warning|notice) ([^:]*)::(.*)$/;

/** The runner's decoding: %25, %0D, %0A in data; also %3A and %2C in property values. */
const decode = (s: string) => s.replace(/%(25|0D|0A|3A|2C)/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

function parseCommands(stdout: string) {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => {
      const m = COMMAND.exec(line);
      expect(m, line).not.toBeNull();
      const props = Object.fromEntries(m![2].split(',').map((p) => p.split('=')).map(([k, v]) => [k, decode(v)]));
      return { command: m![1], props, message: decode(m![3]) };
    });
}

describe('--format github', () => {
  it('matches the reviewed annotations for the shared sample', async () => {
    const r = await runFormat('github', SAMPLE);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/sample.github.txt');
  });

  it('annotates each finding at its first evidence line, error/warning/notice by severity', async () => {
    for (const journal of [SAMPLE, RETRY_AND_FAILURE]) {
      const findings = (await reportFor(journal)).delegations.flatMap((d) => d.findings);
      const commands = parseCommands((await runFormat('github', journal)).stdout);
      expect(commands.map((c) => c.command)).toEqual(findings.map((f) => ({ error: 'error', warning: 'warning', info: 'notice' })[f.severity]));
      expect(commands.map((c) => c.props)).toEqual(findings.map((f) => ({ file: f.evidence[0].file, line: String(f.evidence[0].line), title: f.id })));
      for (const [i, c] of commands.entries()) expect(c.message.startsWith(`${findings[i].message} [delegation ${findings[i].delegation}]`)).toBe(true);
    }
  });

  it('encodes %, CR, LF, : and , so journal text cannot end the command or start another', async () => {
    const r = await runFormat('github', HOSTILE_TEXT);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    await expect(r.stdout).toMatchFileSnapshot('./__snapshots__/hostile-text.github.txt');
    const [finding] = (await reportFor(HOSTILE_TEXT)).delegations[0].findings;
    const [c] = parseCommands(r.stdout);
    expect(c.props.title).toBe('timeout-as-failure');
    // The agent id's CR LF and "::warning file=a,line=1::" come back as text, not as a command.
    expect(c.message).toContain('</b>\r\n::warning file=a,line=1::fake \\u0001');
    expect(c.message.startsWith(finding.message.slice(0, finding.message.indexOf('\u0001')))).toBe(true);
    // Other control and bidi characters reach the log shown escaped, never raw.
    expect(c.message).not.toMatch(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f\u202e]/);
    expect(c.message).toContain('\\u202etxet');
    expect(r.stdout).toContain('%25%25`<b>@octocat</b>%0D%0A::warning');
  });
});
