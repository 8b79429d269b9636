// File errors reach the user in plain words, not as Node's `EIO: i/o error, write`.
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/journal/scan-file.js';

const errno = (code: string, message = `${code}: something, write`) => Object.assign(new Error(message), { code });

describe('describeError', () => {
  it('puts the system errors a user meets in words', () => {
    expect(describeError(errno('EIO'))).toBe('an input/output error (a failing disk, a lost network mount, or a file that takes no writes)');
    expect(describeError(errno('EROFS'))).toBe('a read-only file system');
    expect(describeError(errno('ENOTDIR'))).toBe('a part of the path is not a folder');
    expect(describeError(errno('EMFILE'))).toBe('too many open files (raise ulimit -n)');
    expect(describeError(errno('ENOSPC'))).toBe('no space left on the device');
    expect(describeError(errno('ELOOP'))).toBe('a loop of symbolic links');
  });

  it("keeps the first line of any other error's message", () => {
    expect(describeError(errno('EWHATEVER', 'first line\nsecond'))).toBe('first line');
    expect(describeError('plain')).toBe('plain');
  });
});
