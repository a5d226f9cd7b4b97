import { describe, expect, it } from 'vitest';
import { ENDPOINT_SETTINGS } from '../../../lib/config/settings/endpoints.js';
import { fromText } from './rows.js';

describe('the endpoint settings', () => {
  it('reaches the intake through an HTTP API or a function URL, nothing else', () => {
    expect(ENDPOINT_SETTINGS.webhookAccess.default).toBe('httpApi');
    expect(fromText(ENDPOINT_SETTINGS.webhookAccess, 'functionUrl')).toBe('functionUrl');
    expect(() => fromText(ENDPOINT_SETTINGS.webhookAccess, 'alb')).toThrow();
  });

  it('refuses a rate limit of 0', () => {
    expect(() => fromText(ENDPOINT_SETTINGS.apiRateLimit, '0')).toThrow();
    expect(() => fromText(ENDPOINT_SETTINGS.apiBurstLimit, '0')).toThrow();
  });
});
