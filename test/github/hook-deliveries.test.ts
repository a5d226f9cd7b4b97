import { describe, expect, it } from 'vitest';
import { deliverySucceeded } from '../../lib/github/hook-deliveries.js';

describe('deliverySucceeded', () => {
  it.each([
    [200, true],
    [202, true],
    [302, true],
    [399, true],
    [0, false],
    [400, false],
    [401, false],
    [500, false],
    [503, false],
  ])('status %i: %s', (status_code, ok) => {
    expect(deliverySucceeded({ status_code })).toBe(ok);
  });
});
