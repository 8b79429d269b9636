// Follow mode's small file reads: links, a journal's first and last bytes (a rewrite or an append?), folders.
import { lstatSync, readdirSync, readSync, statSync } from 'node:fs';

export function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

export function readHead(fd: number, n: number): Buffer {
  const buf = Buffer.alloc(n);
  const got = readSync(fd, buf, 0, n, 0);
  return buf.subarray(0, got);
}

/** Whether the open file still starts with `head`. */
export function startsWith(fd: number, head: Buffer): boolean {
  return readHead(fd, head.length).equals(head);
}

/** Bytes `from` to `to` of the open file (fewer if it is shorter now). */
export function readAt(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.alloc(to - from);
  const got = readSync(fd, buf, 0, buf.length, from);
  return buf.subarray(0, got);
}

/** Whether the open file still holds `last` just before `offset`. */
export function endsAt(fd: number, offset: number, last: Buffer): boolean {
  return readAt(fd, offset - last.length, offset).equals(last);
}

export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
