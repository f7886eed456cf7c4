/**
 * A periodic job runs on one node at a time: the first to take its run does it, the others pass,
 * also for a minute after it ended; a run whose node died is taken over when its lease ends.
 */
import { describe, expect, it } from 'vitest';
import { onOneNode } from '../../src/jobs/retention.js';
import { claimJobRun } from '../../src/store/job-runs.js';
import { makeContext } from '../support/context.js';

describe('jobs on one node', () => {
  it('runs on the node that takes the run; another node passes while it runs and for a minute after', async () => {
    const ctx = await makeContext();
    let release!: () => void;
    const running = onOneNode(ctx, 'retention', 'node-a', () => new Promise<string>((r) => (release = () => r('pruned'))));
    await new Promise((r) => setTimeout(r, 50));
    let ran = false;
    expect(await onOneNode(ctx, 'retention', 'node-b', async () => (ran = true))).toBeUndefined();
    release();
    expect(await running).toBe('pruned');
    expect(await onOneNode(ctx, 'retention', 'node-b', async () => (ran = true))).toBeUndefined();
    expect(ran).toBe(false);
    ctx.clock.advance(60_001);
    expect(await onOneNode(ctx, 'retention', 'node-b', async () => (ran = true))).toBe(true);
  });

  it('gives the run to one of two nodes racing for it, and to another once a dead holder’s lease ended', async () => {
    const ctx = await makeContext();
    const now = ctx.clock.now();
    const won = await Promise.all([claimJobRun(ctx.db, 'j', 'a', now, now + 1000), claimJobRun(ctx.db, 'j', 'b', now, now + 1000)]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await claimJobRun(ctx.db, 'j', 'c', now + 999, now + 2000)).toBe(false);
    expect(await claimJobRun(ctx.db, 'j', 'c', now + 1000, now + 2000)).toBe(true);
  });
});
