import { describe, expect, it } from 'vitest';
import { num, obj, optRunNumber, optStr, optTime, str } from '../../lib/webhook/fields.js';

describe('field readers: the value, or a ShapeError naming the field', () => {
  it('an id is a safe non-negative integer', () => {
    expect(num({ id: 42 }, 'id', 'run')).toBe(42);
    expect(() => num({ id: -1 }, 'id', 'run')).toThrow('run.id: expected an id');
    expect(() => num({ id: 2 ** 60 }, 'id', 'run')).toThrow('run.id: expected an id');
  });

  it('a string is non-empty; an optional one may be null or absent', () => {
    expect(str({ sha: 'abc' }, 'sha', 'run')).toBe('abc');
    expect(() => str({ sha: '' }, 'sha', 'run')).toThrow('run.sha: expected a string');
    expect(optStr({}, 'name', 'run')).toBeNull();
    expect(() => optStr({ name: 3 }, 'name', 'run')).toThrow('run.name: expected a string or null');
  });

  it('an object is not null and not a list', () => {
    expect(() => obj([], 'payload')).toThrow('payload: expected an object');
    expect(() => obj(null, 'payload')).toThrow('payload: expected an object');
  });

  it('an optional time and run number are left out when absent, refused when malformed', () => {
    expect(optTime({}, 'created_at', 'run')).toEqual({});
    expect(optTime({ created_at: '2026-01-01T00:00:00Z' }, 'created_at', 'run')).toEqual({
      createdAt: '2026-01-01T00:00:00Z',
    });
    expect(() => optTime({ created_at: 'soon' }, 'created_at', 'run')).toThrow('run.created_at: expected a timestamp');
    expect(optRunNumber({ run_number: null }, 'run')).toEqual({});
    expect(optRunNumber({ run_number: 12 }, 'run')).toEqual({ runNumber: 12 });
  });
});
