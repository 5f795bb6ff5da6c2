import { describeConnectionFailure } from '../../lib/connection-failures';

/**
 * How a first contact's error reads (lib/connection-failures.ts): the messages Temporal's core gives
 * when a plain client meets the TLS port vary from run to run; each must end the start (a setting
 * is wrong, waiting will not mend it), naming TEMPORAL_TLS. The live cases are in
 * test/integration/connection-failures.test.ts against the secured stack.
 */
describe('a plain Temporal client against the TLS port', () => {
  test.each([
    'Failed to call GetSystemInfo: code: \'Unknown\', message: "h2 protocol error: error reading a body from connection"',
    'Failed to call GetSystemInfo: code: \'The operation was cancelled\', message: "operation was canceled", source: tonic::transport::Error(Transport, hyper::Error(Canceled, "connection closed"))',
  ])('%s', (message) => {
    expect(describeConnectionFailure('Temporal', new Error(message), false)).toEqual({
      permanent: true,
      line: 'Temporal: the server closed a plain connection (it probably expects TLS) (TEMPORAL_TLS)',
    });
  });

  test('the same cancellation with TLS on is not taken for it: waited for', () => {
    const failure = describeConnectionFailure(
      'Temporal',
      new Error('operation was canceled: hyper::Error(Canceled, "connection closed")'),
      true,
    );
    expect(failure.permanent).toBe(false);
  });
});
