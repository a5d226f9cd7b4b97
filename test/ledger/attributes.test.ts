import { describe, expect, it } from 'vitest';
import { ATTR, STATE } from '../../lib/ledger/attributes.js';

describe('the table’s attribute names', () => {
  it('each `#name` an expression writes resolves to the attribute of the same name, so stored items keep their names', () => {
    for (const [name, attribute] of Object.entries(ATTR)) expect(attribute).toBe(name);
  });

  it('the key and expiry attributes are the table’s own', () => {
    expect([ATTR.pk, ATTR.sk, ATTR.ttl]).toEqual(['pk', 'sk', 'ttl']);
  });

  it('a run attempt is claimed, waiting or decided: three distinct states', () => {
    expect(Object.values(STATE)).toEqual(['claimed', 'waiting', 'decided']);
  });
});
