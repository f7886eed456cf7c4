import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/domain/admission.js';

describe('Admission', () => {
  it('admits `running` at once, queues `waiting` in arrival order, refuses one more, and hands a freed place to the next', async () => {
    const gate = new Admission(2, 2);
    const a = await gate.enter();
    const b = await gate.enter();
    expect(a && b).toBeTruthy();
    const order: string[] = [];
    const c = gate.enter().then((release) => (order.push('c'), release));
    const d = gate.enter().then((release) => (order.push('d'), release));
    expect(await gate.enter()).toBeUndefined(); // two running, two waiting: full
    a!();
    a!(); // a second release of the same place frees nothing more
    const releaseC = await c;
    expect(order).toEqual(['c']);
    b!();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    // Two running again (c and d), nobody waiting: one more waits, a second more waits too.
    const e = gate.enter();
    releaseC!();
    expect(await e).toBeTypeOf('function');
    releaseD!();
    expect(await gate.enter()).toBeTypeOf('function');
  });
});

describe('Admission.tryEnter', () => {
  it('takes a free place and never queues', async () => {
    const admission = new Admission(1, 5);
    const first = admission.tryEnter();
    expect(first).toBeTypeOf('function');
    expect(admission.tryEnter()).toBeUndefined();
    first!();
    const release = await admission.enter();
    expect(release).toBeTypeOf('function');
  });
});
