#!/usr/bin/env node
// Thin entry point: all behaviour lives in main(), which returns the exit code.
import { main } from '../dist/cli/main.js';

process.exitCode = await main({ argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
