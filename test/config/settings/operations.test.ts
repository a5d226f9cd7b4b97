import { describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../../lib/config/setting.js';
import { OPERATION_SETTINGS } from '../../../lib/config/settings/operations.js';
import { fromText } from './rows.js';

describe('the operations settings', () => {
  it('reads the log level and the removal policy in any case', () => {
    expect(fromText(OPERATION_SETTINGS.logLevel, 'debug')).toBe('DEBUG');
    expect(fromText(OPERATION_SETTINGS.removalPolicy, 'DESTROY')).toBe('destroy');
  });

  it('gives every deployed function the log level and the metrics namespace', () => {
    expect(OPERATION_SETTINGS.logLevel.readBy).toEqual(FUNCTION_NAMES);
    expect(OPERATION_SETTINGS.metricsNamespace.readBy).toEqual(FUNCTION_NAMES);
  });

  it('retains the data unless told otherwise', () => {
    expect(OPERATION_SETTINGS.removalPolicy.default).toBe('retain');
  });
});
