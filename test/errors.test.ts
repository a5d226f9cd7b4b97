import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  IncompleteListingError,
  LogHostError,
  NotFoundError,
  PatternError,
  PermanentError,
  RateLimitedError,
  RequestTimeoutError,
  ShapeError,
  TransientError,
  UnknownInstallationError,
} from '../lib/errors.js';

describe('errors: each kind is permanent or transient, told apart by instanceof', () => {
  it.each([
    ['ConfigError', new ConfigError('x')],
    ['ShapeError', new ShapeError('x')],
    ['PatternError', new PatternError(1, '(', 'x')],
    ['NotFoundError', new NotFoundError('x')],
    ['UnknownInstallationError', new UnknownInstallationError('x')],
  ] as const)('%s is permanent, never transient', (name, err) => {
    expect(err).toBeInstanceOf(PermanentError);
    expect(err).not.toBeInstanceOf(TransientError);
    expect(err.name).toBe(name);
  });

  it.each([
    ['RateLimitedError', new RateLimitedError(1000)],
    ['IncompleteListingError', new IncompleteListingError('x')],
    ['LogHostError', new LogHostError('x')],
    ['RequestTimeoutError', new RequestTimeoutError('x')],
  ] as const)('%s is transient, never permanent', (name, err) => {
    expect(err).toBeInstanceOf(TransientError);
    expect(err).not.toBeInstanceOf(PermanentError);
    expect(err.name).toBe(name);
  });

  it('a PatternError is a configuration error naming its line, and keeps the source', () => {
    const err = new PatternError(3, 'a(b', 'missing )');
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toBe('extra_patterns line 3: missing )');
    expect(err.line).toBe(3);
    expect(err.source).toBe('a(b');
  });
});

describe('RateLimitedError', () => {
  it('says the delay in whole seconds, rounded up, and keeps its cause', () => {
    const cause = new Error('403');
    const err = new RateLimitedError(1500, { cause });
    expect(err.message).toBe('GitHub rate limit: retry after 2s');
    expect(err.delaySeconds).toBe(2);
    expect(err.delayMs).toBe(1500);
    expect(err.cause).toBe(cause);
  });

  it('waits at least one second, however short the delay', () => {
    expect(new RateLimitedError(0).delaySeconds).toBe(1);
    expect(new RateLimitedError(-5).delaySeconds).toBe(1);
    expect(new RateLimitedError(1).delaySeconds).toBe(1);
    expect(new RateLimitedError(60_001).delaySeconds).toBe(61);
  });
});
