import type { Pacing } from '../../../lib/ledger/pacing.js';

/**
 * A pace that gives every request its slot at once: for suites whose clock stands still between
 * decisions, where no real pace could let a batch go. The pace has its own suites.
 */
export const unpaced = (now: () => number): Pacing => ({
  spacingMs: 0,
  reserve: async () => now(),
});
