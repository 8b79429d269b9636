// A whole-document format past the longest string V8 builds: a usage error naming the way out.
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/cli/report-command.js';
import { UsageError } from '../../src/cli/io.js';
import type { TraceReport } from '../../src/report/types.js';

const report = { delegations: [{}, {}, {}] } as unknown as TraceReport;
const ctx = { color: false, failOn: 'error' as const };

describe('renderDocument', () => {
  it('returns what the formatter renders', () => {
    expect(renderDocument(() => '<html>', 'html', report, ctx)).toBe('<html>');
  });

  it('turns the string-length RangeError into a usage error that names the streamed formats', () => {
    const tooLong = () => {
      throw new RangeError('Invalid string length');
    };
    expect(() => renderDocument(tooLong, 'sarif', report, ctx)).toThrow(UsageError);
    expect(() => renderDocument(tooLong, 'sarif', report, ctx)).toThrow(
      'the sarif report of 3 delegations is longer than one string can hold (about 512 MiB); name a target, or use --format json, ndjson or text, which are written as they go',
    );
  });

  it('lets any other error through: it is a defect, not an input problem', () => {
    const broken = () => {
      throw new TypeError('x is undefined');
    };
    expect(() => renderDocument(broken, 'html', report, ctx)).toThrow(TypeError);
  });
});
