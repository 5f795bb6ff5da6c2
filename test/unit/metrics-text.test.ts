import { buckets, bucketsBetween, parseMetrics, quantile, total } from '../../scripts/faults/metrics-text';

const TEXT = `# HELP live_output_delay_seconds delay
# TYPE live_output_delay_seconds histogram
live_output_delay_seconds_bucket{le="0.1"} 5
live_output_delay_seconds_bucket{le="0.5"} 10
live_output_delay_seconds_bucket{le="1"} 10
live_output_delay_seconds_bucket{le="+Inf"} 10
live_output_delay_seconds_sum 1.5
live_output_delay_seconds_count 10
agent_runs_waiting_slot 3
http_server_request_duration_seconds_bucket{method="GET",route="/api/agents/:id",status_code="200",le="0.1"} 4
http_server_request_duration_seconds_bucket{method="GET",route="/api/agents/:id",status_code="200",le="+Inf"} 4
http_server_request_duration_seconds_bucket{method="GET",route="/metrics",status_code="200",le="0.1"} 1
http_server_request_duration_seconds_bucket{method="GET",route="/metrics",status_code="200",le="+Inf"} 2
`;

describe("reading a process's /metrics for the suite's figures (docs/reliability.md)", () => {
  const samples = parseMetrics(TEXT);

  it('reads samples with their labels and sums a metric over its label sets', () => {
    expect(total(samples, 'agent_runs_waiting_slot')).toBe(3);
    expect(total(samples, 'no_such_metric')).toBeNull();
    expect(total(samples, 'http_server_request_duration_seconds_bucket', (labels) => labels.le === '+Inf')).toBe(6);
    expect(samples.find((sample) => sample.labels.route === '/api/agents/:id')?.labels).toEqual({
      method: 'GET',
      route: '/api/agents/:id',
      status_code: '200',
      le: '0.1',
    });
  });

  it("answers a histogram's quantiles as histogram_quantile does: linear inside the bucket", () => {
    const delay = buckets(samples, 'live_output_delay_seconds');
    expect(quantile(0.5, delay)).toBeCloseTo(0.1, 10);
    expect(quantile(0.99, delay)).toBeCloseTo(0.492, 10);
    expect(quantile(0.5, new Map([[Infinity, 0]]))).toBeNull();
  });

  it('takes what happened between two readings, and leaves out filtered label sets', () => {
    const before = new Map([
      [0.1, 2],
      [0.5, 4],
      [1, 4],
      [Infinity, 4],
    ]);
    const after = buckets(samples, 'live_output_delay_seconds');
    expect([...bucketsBetween(before, after)]).toEqual([
      [0.1, 3],
      [0.5, 6],
      [1, 6],
      [Infinity, 6],
    ]);
    const api = buckets(samples, 'http_server_request_duration_seconds', (labels) => labels.route !== '/metrics');
    expect([...api]).toEqual([
      [0.1, 4],
      [Infinity, 4],
    ]);
  });
});
