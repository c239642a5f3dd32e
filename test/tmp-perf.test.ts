import { it } from 'vitest';
import { classify } from '../src/core/index.js';
it('perf', () => {
  const big = 'x'.repeat(66000);
  for (const e of [
    { kind: 'acp_error', error: { code: -32603, message: big, data: big } },
    { kind: 'acp_error', error: { code: -32603, message: big } },
    { kind: 'stderr', text: big },
  ]) {
    for (let i = 0; i < 30; i++) classify(e, { now: 0 });
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const c = process.cpuUsage();
      classify(e, { now: 0 });
      const u = process.cpuUsage(c);
      times.push((u.user + u.system) / 1000);
    }
    times.sort((a, b) => a - b);
    console.log(e.kind, 'p50', times[100], 'p99', times[197], 'max', times[199]);
  }
});
