// The README's Library examples compile as a user's strict TypeScript would, against the shipped declarations.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('README: every ts block of the Library section type-checks (strict, NodeNext)', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const library = readme.slice(readme.indexOf('\n## Library\n'), readme.indexOf('\n## Development\n'));
  const blocks = [...library.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  const dir = mkdtempSync(path.join(tmpdir(), 'readme-ts-'));
  try {
    const files = blocks.map((code, i) => {
      const file = path.join(dir, `example-${i}.mts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    const config = {
      compilerOptions: {
        module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true,
        types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        paths: { 'trace-delegation': [path.join(ROOT, 'dist', 'index.d.ts')] },
      },
      files,
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
