/**
 * The identity of an event borderd makes up (an operator's synthetic event, a test event): an id of
 * the resource kind its type names, which names nothing stored, its times, and the synthetic mark.
 *
 * @module domain/synthetic-event
 */
import { isoAt } from './clock.js';
import { newId } from './ids.js';

export interface SyntheticIdentity {
  id: string;
  createdAt: string;
  updatedAt: string;
  synthetic: true;
}

export function syntheticIdentity(type: string, nowMs: number): SyntheticIdentity {
  const at = isoAt(nowMs);
  const prefix = type.startsWith('Transaction') ? 'txn' : type.startsWith('Virtual') ? 'vac' : 'cmp';
  return { id: newId(prefix, nowMs), createdAt: at, updatedAt: at, synthetic: true };
}
