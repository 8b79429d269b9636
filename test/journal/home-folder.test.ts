// The home folder is asked for only when a path needs it, and its absence is one sentence.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const userInfo = vi.fn();
vi.mock('node:os', async (actual) => ({ ...(await actual<typeof import('node:os')>()), userInfo: () => userInfo() }));
const { defaultSessionRoots, discoverJournals, expandHome, InputError } = await import('../../src/journal/discover.js');

const NO_HOME = 'cannot find the home folder (HOME is not set and the user has none): name the journals with --sessions or ASTRA_SESSIONS_DIR';

describe('the home folder', () => {
  beforeEach(() => {
    userInfo.mockReset();
  });

  it('is $HOME when set, and the password database when HOME is unset or empty (not a path relative to the working directory)', () => {
    userInfo.mockReturnValue({ homedir: '/home/oncall' });
    expect(defaultSessionRoots({ HOME: '/home/h' })).toEqual(['/home/h/.astra/sessions']);
    expect(defaultSessionRoots({})).toEqual(['/home/oncall/.astra/sessions']);
    expect(defaultSessionRoots({ HOME: '' })).toEqual(['/home/oncall/.astra/sessions']);
    expect(expandHome('~/s', { HOME: '' })).toBe('/home/oncall/s');
  });

  it('missing altogether (a uid with no passwd entry): one sentence, and only when a path needs it', async () => {
    userInfo.mockImplementation(() => {
      throw Object.assign(new Error('uv_os_get_passwd returned ENOENT'), { code: 'ENOENT' });
    });
    expect(() => defaultSessionRoots({})).toThrow(new InputError(NO_HOME));
    expect(() => expandHome('~/s', {})).toThrow(new InputError('cannot expand ~ in ~/s: HOME is not set and the user has no home folder; give the path without ~'));
    // A named root, or ASTRA_SESSIONS_DIR without ~, never asks.
    expect(expandHome('/srv/sessions', {})).toBe('/srv/sessions');
    expect(defaultSessionRoots({ ASTRA_SESSIONS_DIR: '/srv/sessions' })).toEqual(['/srv/sessions']);
    await expect(discoverJournals(['/nonexistent-td-root'], '/')).rejects.toThrow(new InputError('sessions root /nonexistent-td-root does not exist'));
    expect(userInfo).toHaveBeenCalledTimes(2);
  });

  it('an empty root (an unset variable in --sessions "$DIR") is refused, not read as the working directory', async () => {
    await expect(discoverJournals([''], '/tmp')).rejects.toThrow(new InputError('a sessions root is empty (an unset variable?): name a folder, file or glob, or . for the working directory'));
  });
});
