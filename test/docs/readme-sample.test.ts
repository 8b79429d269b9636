// The README's report sample is the CLI's real output, not an edited copy.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, runMain } from '../helpers/cli.js';

it('README: the report sample is what `--sessions astra-sample.jsonl e19c4d73` prints', async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const sample = readme.match(/```\n(Delegation Trace: e19c4d73[\s\S]*?)```/)![1];
  const r = await runMain(['--sessions', 'astra-sample.jsonl', 'e19c4d73', '--no-color'], { cwd: path.join(ROOT, 'fixtures', 'samples') });
  expect(r.code).toBe(0);
  expect(sample).toBe(r.stdout);
});
