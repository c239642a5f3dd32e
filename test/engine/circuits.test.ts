import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument } from './harness.js';
import { advanceManualClock } from '../../src/engine/index.js';
import { doc, off, retries, t0, waitsUpTo } from '../core/route/route-fixtures.js';

const onAnthropic = {
  a: { provider: 'anthropic', model: 'sonnet' },
  b: { provider: 'anthropic', model: 'opus' },
  c: { provider: 'openai' },
};

describe('shared resource circuits in the engine', () => {
  it('[CIR-03][CIR-04][CIR-05] 1,000 routes behind one expired circuit start exactly one probe; its success releases the rest', async () => {
    const h = await harness();
    try {
      // Reset waiting up to 10 min: the policy lets its routes wait out a circuit that short (CIR-05 decision).
      await h.engine.saveProfile(
        profileDocument(doc(waitsUpTo(600, retries(3, 5, 'stop')), off), onAnthropic),
      );
      const ids = Array.from({ length: 1000 }, (_, i) => `r${String(i).padStart(4, '0')}`);
      await Promise.all(ids.map((id) => h.engine.startRoute({ routeId: id, profileId: 'p' })));
      await h.engine.idle();
      // r0000 fails first and opens the provider circuit; the other 999 fail into the same open circuit.
      await h.fail(ids[0]!, envelopes.overloaded);
      await Promise.all(ids.slice(1).map((id) => h.fail(id, envelopes.overloaded)));
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'open',
        openedBy: 'r0000',
        openUntilMs: t0 + 60_000,
      });

      // At 5 s only the opener retries, on its own policy's cadence; the herd is held until the circuit expires.
      await h.advance(5);
      const retries5 = h.dispatcher.sent.filter((i) => i.kind === 'retry');
      expect(retries5.map((i) => i.routeId)).toEqual(['r0000']);
      // The opener's probe never answers; its lease lapses at 35 s, and no probe is admitted before the circuit
      // expires (CIR-01 decision). At 60 s the circuit has expired: one probe.
      await h.advance(59);
      expect(h.dispatcher.sent.filter((i) => i.kind === 'retry')).toHaveLength(1);
      await h.advance(60);
      const probes = h.dispatcher.sent.filter((i) => i.kind === 'retry').slice(1);
      expect(probes).toHaveLength(1);
      const probe = probes[0]!.routeId;
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'half_open',
        probeOwner: probe,
      });
      const counts = await h.store.countRoutes();
      expect(counts).toMatchObject({ retry_wait: 998, retrying: 2 });

      // The probe succeeds: the circuit closes and the held routes retry when their hold ends, once each.
      await h.engine.reportSuccess({ routeId: probe, generation: 1 });
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({ state: 'closed' });
      await h.advance(90);
      const all = h.dispatcher.sent.filter((i) => i.kind === 'retry');
      expect(all).toHaveLength(1000);
      expect(new Set(all.map((i) => i.routeId)).size).toBe(1000);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('[CIR-03][CIR-05] a probe that succeeds releases the routes held behind its lease at once, not when the lease ends', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(
        profileDocument(doc(waitsUpTo(600, retries(3, 5, 'stop')), off), onAnthropic),
      );
      const ids = ['r1', 'r2', 'r3', 'r4'];
      for (const id of ids) await h.engine.startRoute({ routeId: id, profileId: 'p' });
      await h.engine.idle();
      for (const id of ids) await h.fail(id, envelopes.overloaded);
      await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 }); // the opener leaves
      // At 60 s the circuit expires: one route probes, the two others are held until its 30 s lease ends.
      await h.advance(60);
      const sentRetries = () => h.dispatcher.sent.filter((i) => i.kind === 'retry').map((i) => i.routeId);
      expect(sentRetries()).toHaveLength(1);
      const probe = sentRetries()[0]!;
      const held = ids.slice(1).filter((id) => id !== probe);
      const leaseEndMs = t0 + 90_000;
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'half_open',
        probeOwner: probe,
        probeLeaseUntilMs: leaseEndMs,
      });
      for (const id of held)
        expect(await h.route(id)).toMatchObject({ state: 'retry_wait', deadlineMs: leaseEndMs });

      // The probe succeeds at 61 s: the circuit closes and the held routes go now, 29 s before the lease ends.
      h.clock.set(t0 + 61_000);
      await h.engine.reportSuccess({ routeId: probe, generation: 1 });
      await h.engine.idle();
      await advanceManualClock(h.clock, h.engine, h.clock.now());
      expect(h.clock.now()).toBe(t0 + 61_000);
      expect(sentRetries().sort()).toEqual([probe, ...held].sort());
      for (const id of held) expect(await h.route(id)).toMatchObject({ state: 'retrying' });
      const woken = h.events.filter((e) => e.type === 'transition' && e.decision === 'circuit_closed');
      expect(woken).toHaveLength(held.length);
    } finally {
      await h.close();
    }
  });

  it('[CIR-02][CIR-05] the opener’s own retry succeeding releases the routes held behind it at once', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(
        profileDocument(doc(waitsUpTo(600, retries(3, 5, 'stop')), off), onAnthropic),
      );
      for (const id of ['r1', 'r2']) await h.engine.startRoute({ routeId: id, profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      await h.fail('r2', envelopes.overloaded);
      // At 5 s the opener retries on its own cadence and takes the probe lease: r2 is held until it ends (35 s).
      await h.advance(5);
      expect(await h.route('r2')).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 35_000 });
      h.clock.set(t0 + 6_000);
      await h.engine.reportSuccess({ routeId: 'r1', generation: 1 });
      await h.engine.idle();
      await advanceManualClock(h.clock, h.engine, h.clock.now());
      expect(h.clock.now()).toBe(t0 + 6_000);
      expect(await h.route('r2')).toMatchObject({ state: 'retrying' });
    } finally {
      await h.close();
    }
  });

  it('[CIR-03] a probe that fails reopens the circuit with the prober as its opener', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(
        profileDocument(doc(waitsUpTo(600, retries(5, 5, 'stop')), off), onAnthropic),
      );
      for (const id of ['r1', 'r2']) await h.engine.startRoute({ routeId: id, profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      await h.fail('r2', envelopes.overloaded);
      await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 }); // the opener leaves
      await h.advance(60);
      expect(h.dispatcher.sent.filter((i) => i.kind === 'retry').map((i) => i.routeId)).toEqual(['r2']);
      h.clock.set(t0 + 70_000);
      await h.fail('r2', envelopes.overloaded);
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'open',
        openedBy: 'r2',
        openUntilMs: t0 + 130_000,
      });
    } finally {
      await h.close();
    }
  });

  it('[CIR-02] a success on another provider does not close the circuit the route opened on the first one', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc({ ...off, on_exhausted: 'skip' }, off), onAnthropic));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded);
      expect(await h.route('r1')).toMatchObject({ state: 'active', candidate: 'c' });
      await h.engine.reportSuccess({ routeId: 'r1', generation: 2 });
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'open',
        openedBy: 'r1',
      });
    } finally {
      await h.close();
    }
  });

  it('[CIR-01][CIR-02] an open circuit is an eligibility input when a successor is chosen', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc({ ...off, on_exhausted: 'skip' }, off), onAnthropic));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      // a fails with a provider-scoped overload: b runs on the same provider, so the successor is c.
      const outcome = await h.fail('r1', envelopes.overloaded);
      expect(outcome.route).toMatchObject({ state: 'switching', nextCandidate: 'c' });
      expect(await h.route('r1')).toMatchObject({ state: 'active', candidate: 'c', generation: 2 });
    } finally {
      await h.close();
    }
  });

  it('[CIR-02][CIR-05][EVL-11] a circuit opened for ten days by another route holds a route no longer than its own policy waits', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc(retries(3, 5, 'skip'), off), onAnthropic));
      for (const id of ['r1', 'r2']) await h.engine.startRoute({ routeId: id, profileId: 'p' });
      await h.engine.idle();
      // r1: a 503 with Retry-After ten days opens provider:anthropic until then.
      await h.fail('r1', envelopes.unavailableRetryAfter(864_000));
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'open',
        openUntilMs: t0 + 864_000_000,
      });
      // r2 (3 retries at 5 s then skip, no reset waiting) fails with a 529: at its deadline it is not held ten
      // days; it evaluates its next candidates at once (b shares the provider, c does not).
      await h.fail('r2', envelopes.overloaded);
      await h.advance(5);
      expect(await h.route('r2')).toMatchObject({ state: 'active', candidate: 'c', generation: 2 });
      expect(h.dispatcher.kinds().filter((k) => k.startsWith('successor'))).toEqual(['successor:c:2']);
      const attempts = await h.store.listAttempts('r2');
      expect(attempts.map((a) => a.decision)).toEqual(['retry']);
    } finally {
      await h.close();
    }
  });

  it('[CIR-01][CIR-03][CIR-04] a probe lease that lapses without an outcome admits no other probe before open_until', async () => {
    const h = await harness();
    try {
      // r1 retries at 5 s without reset waiting; r2 may wait out a circuit for up to 15 minutes.
      await h.engine.saveProfile(profileDocument(doc(retries(3, 5, 'skip'), off), onAnthropic, 'p1'));
      await h.engine.saveProfile(
        profileDocument(doc(waitsUpTo(900, retries(3, 5, 'skip')), off), onAnthropic, 'p2'),
      );
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p1' });
      await h.engine.startRoute({ routeId: 'r2', profileId: 'p2' });
      await h.engine.idle();
      // r1's 503 with Retry-After 600 opens the circuit until +600; r2 fails with a 529 into it.
      await h.fail('r1', envelopes.unavailableRetryAfter(600));
      await h.fail('r2', envelopes.overloaded);
      // At 5 s r1, the opener, keeps its own cadence: its retry takes the probe lease (30 s) and never reports.
      await h.advance(5);
      expect(h.dispatcher.kinds().filter((k) => k.startsWith('retry'))).toEqual(['retry:a:1']);
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'half_open',
        probeOwner: 'r1',
        openUntilMs: t0 + 600_000,
      });
      // r2 is held until the lease ends; at 35 s the lease has lapsed: open again until 600, and no probe.
      await h.advance(40);
      expect(h.dispatcher.sent.filter((i) => i.routeId === 'r2' && i.kind !== 'initial')).toEqual([]);
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'open',
        probeOwner: null,
        openUntilMs: t0 + 600_000,
      });
      expect(await h.route('r2')).toMatchObject({ state: 'retry_wait', deadlineMs: t0 + 600_000 });
      await h.advance(599);
      expect(h.dispatcher.sent.filter((i) => i.routeId === 'r2' && i.kind !== 'initial')).toEqual([]);
      await h.advance(600);
      expect(h.dispatcher.sent.at(-1)).toMatchObject({ routeId: 'r2', kind: 'retry' });
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'half_open',
        probeOwner: 'r2',
      });
    } finally {
      await h.close();
    }
  });

  it('[CIR-03][CIR-04] a route started on a candidate whose circuit expired takes its probe lease: later starts move on', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc(retries(3, 5, 'skip'), off), onAnthropic));
      await h.engine.startRoute({ routeId: 'r1', profileId: 'p' });
      await h.engine.idle();
      await h.fail('r1', envelopes.overloaded); // provider:anthropic open until 60 s
      await h.engine.act({ routeId: 'r1', action: 'stop', expectedGeneration: 1 });
      h.clock.set(t0 + 61_000);
      await h.engine.startRoute({ routeId: 'r2', profileId: 'p' });
      expect(await h.store.readCircuit('provider:anthropic')).toMatchObject({
        state: 'half_open',
        probeOwner: 'r2',
      });
      const r3 = await h.engine.startRoute({ routeId: 'r3', profileId: 'p' });
      expect(r3).toMatchObject({ candidate: 'c' });
    } finally {
      await h.close();
    }
  });
});
