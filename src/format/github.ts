import type { Severity } from '../checks/types.js';
import { BIDI_CONTROLS, spelledOut, ZERO_WIDTH } from './invisible.js';
import type { DelegationReport } from '../report/types.js';
import type { Formatter } from './types.js';
import { shownLocations } from './locations.js';

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

// Controls other than CR and LF (the runner unescapes those), separators and bidi controls.
const CONTROLS = new RegExp(`[\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}${ZERO_WIDTH}]`, 'g');

/** Other control and bidi characters would reach the log viewer raw (ANSI colours, reordering). */
function showControls(s: string): string {
  return s.replace(CONTROLS, spelledOut);
}

/** Command data, as the Actions runner unescapes it: `%`, CR and LF (other controls shown escaped). */
export function escapeData(s: string): string {
  return showControls(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Command property values additionally encode the `:` and `,` that delimit properties. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One delegation's annotations, one line per finding (each ends in a newline). */
export function githubAnnotations(d: Pick<DelegationReport, 'findings'>): string {
  let out = '';
  for (const f of d.findings) {
    const loc = f.evidence[0];
    const props = [...(loc ? [`file=${escapeProperty(loc.file)}`, `line=${loc.line}`] : []), `title=${escapeProperty(f.id)}`].join(',');
    const more = f.evidence.length > 1 ? ` (also ${shownLocations(f.evidence.slice(1))})` : '';
    out += `::${COMMAND[f.severity]} ${props}::${escapeData(`${f.message} [delegation ${f.delegation}]${more}`)}\n`;
  }
  return out;
}

/**
 * GitHub Actions workflow commands, one annotation per finding at its first evidence line:
 * `::error` for errors, `::warning` for warnings, `::notice` for info.
 */
export const formatGithub: Formatter = (report) => report.delegations.map(githubAnnotations).join('');
