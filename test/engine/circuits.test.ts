import { describe, expect, it } from 'vitest';
import { envelopes, harness, profileDocument } from './harness.js';
import { doc, off, retries, t0 } from '../core/route/route-fixtures.js';

const onAnthropic = {
  a: { provider: 'anthropic', model: 'sonnet' },
  b: { provider: 'anthropic', model: 'opus' },
  c: { provider: 'openai' },
};

describe('shared resource circuits in the engine', () => {
  it('[CIR-03][CIR-04][CIR-05] 1,000 routes behind one expired circuit start exactly one probe; its success releases the rest', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc(retries(3, 5, 'stop'), off), onAnthropic));
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
      // The opener's probe never answers; its lease lapses at 35 s. At 60 s the circuit has expired: one probe.
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

  it('[CIR-03] a probe that fails reopens the circuit with the prober as its opener', async () => {
    const h = await harness();
    try {
      await h.engine.saveProfile(profileDocument(doc(retries(5, 5, 'stop'), off), onAnthropic));
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
});
