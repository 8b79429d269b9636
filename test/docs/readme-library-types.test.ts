// The README's Library examples compile as a user's strict TypeScript would, against the shipped declarations.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { expectTypeChecks } from '../helpers/typecheck.js';

it('README: every ts block of the Library section type-checks (strict, NodeNext)', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const library = readme.slice(readme.indexOf('\n## Library\n'), readme.indexOf('\n## Development\n'));
  const blocks = [...library.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  expectTypeChecks(Object.fromEntries(blocks.map((code, i) => [`example-${i}.mts`, `${code}\nexport {};\n`])));
}, 60_000);
