// The wording and number helpers checks build their messages and decisions on.
import { describe, expect, it } from 'vitest';
import { isTimeoutError, seconds } from '../../src/model/evidence.js';

describe('isTimeoutError', () => {
  it.each([
    'agent execution timeout: shared deadline exceeded',
    'TimeoutError: operation took too long',
    'request timed out after 30s',
    'rpc error: code = DEADLINE_EXCEEDED',
    'connect ETIMEDOUT 10.0.0.1:443',
    // Exception names ending a CamelCase word.
    'httpx.ReadTimeout: ',
    'ConnectTimeout while reaching the registry',
    'java.net.SocketTimeoutException: Read timed out',
    // An admission timeout beside another timeout: the run did start, then timed out.
    'model admission timed out; retry timed out after 30s',
  ])('recognises %j', (error) => expect(isTimeoutError(error)).toBe(true));

  it.each(['model admission timed out', 'ModelAdmissionTimeout', 'admission timeout', 'runtime output was empty', 'RuntimeOutput was empty', 'set readTimeout=30s then got connection refused', 'deadline met', '', null])('does not take %j for a timeout', (error) => {
    expect(isTimeoutError(error)).toBe(false);
  });
});

describe('seconds', () => {
  it.each([
    [5000, '5s'],
    [1500, '1.5s'],
    [0.000001, '0.000000001s'], // one nanosecond late is still late
    [2999.787192, '3s'], // milliseconds from a second up
    [250.5, '0.2505s'],
    [0, '0s'],
  ])('%d ms → %s', (ms, text) => expect(seconds(ms)).toBe(text));
});
