#!/usr/bin/env node
// Thin entry point: all behaviour lives in main(), which returns the exit code. The bundled CLI
// (npm run build) loads faster; the plain compiled modules work the same without it.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/bundle/main.js', import.meta.url);
const { main } = await import(existsSync(bundle) ? bundle.href : '../dist/cli/main.js');

process.exitCode = await main({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
