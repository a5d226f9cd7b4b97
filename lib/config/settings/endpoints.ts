import { int, oneOf } from '../parsers.js';
import { def } from '../setting.js';

/** How GitHub and agents reach the intake functions, and the API's rate limits. */
export const ENDPOINT_SETTINGS = {
  webhookAccess: def({
    prop: 'webhookAccess',
    context: 'webhookAccess',
    custom: true,
    default: 'httpApi',
    parse: oneOf(['httpApi', 'functionUrl'] as const),
    readBy: [],
    local: false,
    doc: '`functionUrl` replaces the HTTP API by two Lambda function URLs (no access log)',
  }),
  apiRateLimit: def({
    context: 'apiRateLimit',
    custom: true,
    default: 100,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'HTTP API throttling of `POST /webhook`, requests per second (`WebhookAccess.httpApi({ rateLimit })`)',
  }),
  apiBurstLimit: def({
    context: 'apiBurstLimit',
    custom: true,
    default: 600,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'HTTP API burst; takes two overlapping `workflow_job` waves of a 256-job matrix',
  }),
} as const;
