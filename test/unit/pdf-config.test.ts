import { ConfigError, loadConfig } from '../../lib/config';

describe('PDF settings', () => {
  it('defaults to the system Chromium, 3 sheets at once, a fresh browser every 500 sheets, 30 s per step', () => {
    expect(loadConfig({}).pdf).toEqual({ chromiumPath: '/usr/bin/chromium', concurrency: 3, restartAfter: 500, timeoutMs: 30_000 });
  });

  it('reads CHROMIUM_PATH, PDF_CONCURRENCY, PDF_RESTART_AFTER and PDF_TIMEOUT_MS', () => {
    const env = { CHROMIUM_PATH: '/opt/chromium/chrome', PDF_CONCURRENCY: '1', PDF_RESTART_AFTER: '50', PDF_TIMEOUT_MS: '5000' };
    expect(loadConfig(env).pdf).toEqual({ chromiumPath: '/opt/chromium/chrome', concurrency: 1, restartAfter: 50, timeoutMs: 5000 });
  });

  it.each([
    [{ PDF_CONCURRENCY: '0' }, 'PDF_CONCURRENCY'],
    [{ PDF_CONCURRENCY: '33' }, 'PDF_CONCURRENCY'],
    [{ PDF_CONCURRENCY: '1.5' }, 'PDF_CONCURRENCY'],
    [{ PDF_RESTART_AFTER: '0' }, 'PDF_RESTART_AFTER'],
    [{ PDF_RESTART_AFTER: 'never' }, 'PDF_RESTART_AFTER'],
    [{ PDF_TIMEOUT_MS: '-1' }, 'PDF_TIMEOUT_MS'],
  ])('rejects %p naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid environment: ${name}: `));
  });
});
