/**
 * The hostile-text fixture (fixtures/hostile/hostile.jsonl) and the payloads in it: journal text
 * written to break every output format (HTML and Markdown injection, Mermaid syntax, XML-illegal
 * characters, GitHub workflow commands, terminal escape sequences, bidi overrides, NUL).
 */
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';

export const HOSTILE_FIXTURE = path.join(ROOT, 'fixtures', 'hostile', 'hostile.jsonl');

/** Payloads, by what they attack. */
export const P = {
  script: '<script>alert(1)</script>',
  img: '"><img src=x onerror=alert(1)>',
  svg: "'><svg/onload=alert(1)>",
  mdTable: '| x | y |\n|---|---|\n| injected | row |',
  mdFence: '```\n</details>\n# injected heading\n```',
  mdLink: '[click](javascript:alert(1)) ![img](https://evil.example/x.png) <https://evil.example> @octocat #1 *em* _u_ ~~s~~',
  mermaid: 'a: b; c # d %% e\ncrit, done, x1, 2020-01-01, 1d\nsection pwn\nclick r1 call alert(1)',
  xml: 'nul\u0000 bel\u0007 vt\u000b ff\u000c fffe\ufffe ffff\uffff lone\ud800 ]]> <![CDATA[ &amp; &#0;',
  gh: '100% done\r\n::error file=x.ts,line=1::pwned\n::add-mask::secret, a:b ::',
  ansi: '\u001b[31mRED\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u001b[2J\u001b[H \u009b31m',
  bidi: 'invoice\u202egnp.exe\u202c \u2066iso\u2069 \u200f',
  lines: 'tab\there cr\rhere nl\nhere nel\u0085 ls\u2028 ps\u2029 del\u007f',
};

/** Session, agents, delegation ids and a run id, each hostile in its own way. */
export const SID = '"><img src=x onerror=alert(1)>\u001b[2J';
export const A1 = '<script>alert(1)</script>';
export const A2 = '\u001b[31mred-agent\u001b[0m';
export const A3 = 'gh%agent,1:2\n::warning::x';
export const A4 = '| pipe | agent `tick` ``` @octocat #1';
export const DA = 'hostile-a';
export const DB = '"><img src=x onerror=alert(1)>:b;c#d %%';
export const DC = '</details>```c\n# heading';
export const R_HOST = '\u001b]8;;https://evil.example\u0007run\u001b]8;;\u0007';

/** The fixture's lines: three delegations (one nested) whose ids, agents, statuses, previews, errors, reasons and one ts are hostile. */
export function hostileJournal(): string {
  let s = 0;
  const ts = () => `2026-03-10T10:00:${String(s++).padStart(2, '0')}.000000000+00:00`;
  const L = (type: string, metadata: Record<string, unknown>, t = ts()) => JSON.stringify({ type, ts: t, session_id: SID, metadata });
  const lines = [
    L('delegation_started', { agent_count: 5, agent_ids: [A1, A2, A3, A4], delegation_id: DA, parent_run_id: P.img, pattern: 'fan_out' }),
    L('delegation_sub_run_started', { agent_id: A1, delegation_id: DA, depth: 1, parent_run_id: P.img, retry_of: null, status: 'running', sub_run_id: 'r-a1' }),
    L('delegation_sub_run_started', { agent_id: A2, delegation_id: DA, depth: 1, parent_run_id: P.img, retry_of: null, status: 'running', sub_run_id: 'r-a2' }),
    L('delegation_sub_run_started', { agent_id: A3, delegation_id: DA, depth: 1, parent_run_id: P.img, retry_of: null, status: 'running', sub_run_id: 'r-a3' }),
    L('sync_marker', { action: '<b>pause</b>\u001b[5m', run_id: 'r-a1' }),
    // A nested delegation started by r-a1, with an id built to break Markdown and HTML.
    L('delegation_started', { agent_count: 1, agent_ids: [P.svg], delegation_id: DC, parent_run_id: 'r-a1', pattern: 'fork' }),
    L('delegation_sub_run_started', { agent_id: P.svg, delegation_id: DC, depth: 2, parent_run_id: 'r-a1', retry_of: null, status: 'running', sub_run_id: 'r-c1' }),
    L('delegation_sub_run_completed', { agent_id: P.svg, delegation_id: DC, error: null, output_preview: P.mdFence + P.mermaid, status: 'completed', sub_run_id: 'r-c1' }),
    L('delegation_completed', { aggregated_output_preview: P.script, aggregated_status: 'completed', delegation_id: DC, failed: 0, pattern: 'fork', succeeded: 1, total_sub_runs: 1 }),
    L('delegation_sub_run_completed', { agent_id: A1, delegation_id: DA, error: `agent execution timeout: ${P.img} ${P.mermaid}`, output_preview: P.mdTable + P.mdFence, status: 'failed', sub_run_id: 'r-a1' }),
    L('delegation_sub_run_completed', { agent_id: A2, delegation_id: DA, error: null, output_preview: P.ansi, status: 'verification_failed', sub_run_id: 'r-a2' }),
    L('delegation_retry', { agent_id: A2, attempt: 2, delegation_id: DA, original_run_id: 'r-a2', reason: P.gh + P.bidi, retry_run_id: 'r-a2b' }),
    L('delegation_sub_run_started', { agent_id: A2, delegation_id: DA, depth: 1, parent_run_id: P.img, retry_of: 'r-a2', status: 'running', sub_run_id: 'r-a2b' }),
    L('delegation_sub_run_completed', { agent_id: A2, delegation_id: DA, error: null, output_preview: P.xml, status: 'completed', sub_run_id: 'r-a2b' }),
    L('delegation_completed', { aggregated_output_preview: P.mdLink + P.lines, aggregated_status: 'partial', delegation_id: DA, failed: 1, pattern: 'fan_out', succeeded: 1, total_sub_runs: 9 }),
    // A sequential delegation whose id, pattern, run id, status and one timestamp are hostile.
    L('delegation_started', { agent_count: 2, agent_ids: ['first', P.gh], delegation_id: DB, parent_run_id: P.ansi, pattern: `sequential${P.script}` }),
    L('delegation_sub_run_started', { agent_id: 'first', delegation_id: DB, depth: 1, parent_run_id: P.ansi, retry_of: null, status: 'running', sub_run_id: R_HOST }, '<script>alert("ts")</script>\u001b[2J'),
    L('delegation_sub_run_completed', { agent_id: 'first', delegation_id: DB, error: P.lines + P.xml, output_preview: null, status: `failed${P.img}`, sub_run_id: R_HOST }),
  ];
  return `${lines.join('\n')}\n`;
}
