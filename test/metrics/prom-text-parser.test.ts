import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePromText, sampleValue } from '../support/prom-text.js';

// The example of the exposition format's documentation (prometheus.io, text-based format).
const SPEC_EXAMPLE = `# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9

# Minimalistic line:
metric_without_timestamp_and_labels 12.47

# A weird metric from before the epoch:
something_weird{problem="division by zero"} +Inf -3982045

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="0.1"} 33444
http_request_duration_seconds_bucket{le="0.2"} 100392
http_request_duration_seconds_bucket{le="0.5"} 129389
http_request_duration_seconds_bucket{le="1"} 133988
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320
`;

test('the parser reads the format documentation\'s own example', () => {
  const f = parsePromText(SPEC_EXAMPLE);
  assert.is(f.get('http_requests_total')!.type, 'counter');
  assert.is(sampleValue(f, 'http_requests_total', { method: 'post', code: '400' }), 3);
  assert.is(sampleValue(f, 'msdos_file_access_time_seconds', { path: 'C:\\DIR\\FILE.TXT', error: 'Cannot find file:\n"FILE.TXT"' }), 1.458255915e9);
  assert.is(sampleValue(f, 'something_weird', { problem: 'division by zero' }), Infinity);
  assert.is(f.get('http_request_duration_seconds')!.samples.length, 8);
});

test('the parser refuses what the format does not allow', () => {
  const bad: [string, RegExp][] = [
    ['x 1', /line feed/],
    ['x{a="1"} one\n', /not a float/],
    ['x{a="\\t"} 1\n', /bad escape/],
    ['x{a="1",a="2"} 1\n', /twice/],
    ['x 1\nx 2\n', /appears twice/],
    ['x 1\ny 1\nx{a="b"} 1\n', /not together/],
    ['x 1\n# TYPE x counter\n', /after its samples/],
    ['# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n', /cumulative/],
    ['# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n', /not _count/],
    ['# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', /\+Inf/],
    ['x{a=1} 1\n', /expected ="/],
  ];
  for (const [text, why] of bad) assert.throws(() => parsePromText(text), why, JSON.stringify(text));
});

test.run();
