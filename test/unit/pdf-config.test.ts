import { ConfigError, loadConfig } from '../../lib/config';

describe('PDF settings', () => {
  it('defaults to the system Chromium with its sandbox, 3 sheets at once, 30 waiting, a fresh browser every 500 sheets, 30 s per step, 60 sheets a minute per client', () => {
    expect(loadConfig({}).pdf).toEqual({
      chromiumPath: '/usr/bin/chromium',
      chromiumSandbox: true,
      concurrency: 3,
      restartAfter: 500,
      timeoutMs: 30_000,
      queueLimit: 30,
      rateLimit: { requests: 60, windowSeconds: 60 },
    });
  });

  it('reads CHROMIUM_PATH, CHROMIUM_SANDBOX, PDF_CONCURRENCY, PDF_RESTART_AFTER, PDF_TIMEOUT_MS, PDF_QUEUE_LIMIT and the PDF rate limit', () => {
    const env = {
      CHROMIUM_PATH: '/opt/chromium/chrome',
      CHROMIUM_SANDBOX: 'off',
      PDF_CONCURRENCY: '1',
      PDF_RESTART_AFTER: '50',
      PDF_TIMEOUT_MS: '5000',
      PDF_QUEUE_LIMIT: '0',
      PDF_RATE_LIMIT_REQUESTS: '5',
      PDF_RATE_LIMIT_WINDOW_SECONDS: '10',
    };
    expect(loadConfig(env).pdf).toEqual({
      chromiumPath: '/opt/chromium/chrome',
      chromiumSandbox: false,
      concurrency: 1,
      restartAfter: 50,
      timeoutMs: 5000,
      queueLimit: 0,
      rateLimit: { requests: 5, windowSeconds: 10 },
    });
  });

  it.each([
    [{ CHROMIUM_SANDBOX: 'no' }, 'CHROMIUM_SANDBOX'],
    [{ PDF_CONCURRENCY: '0' }, 'PDF_CONCURRENCY'],
    [{ PDF_CONCURRENCY: '33' }, 'PDF_CONCURRENCY'],
    [{ PDF_CONCURRENCY: '1.5' }, 'PDF_CONCURRENCY'],
    [{ PDF_RESTART_AFTER: '0' }, 'PDF_RESTART_AFTER'],
    [{ PDF_RESTART_AFTER: 'never' }, 'PDF_RESTART_AFTER'],
    [{ PDF_TIMEOUT_MS: '-1' }, 'PDF_TIMEOUT_MS'],
    [{ PDF_QUEUE_LIMIT: '-1' }, 'PDF_QUEUE_LIMIT'],
    [{ PDF_RATE_LIMIT_REQUESTS: '0' }, 'PDF_RATE_LIMIT_REQUESTS'],
  ])('rejects %p naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid environment: ${name}: `));
  });
});
