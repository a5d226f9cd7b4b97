import { App } from 'aws-cdk-lib';
import { PLATFORM_ENV } from '../lib/config/function-env.js';
import { propsFromContext } from './context.js';
import { applyNagPacks } from './nag.js';
import { RepriseStack } from './reprise-stack.js';

// Deploys into the account and region of the caller's credentials (set by the CDK CLI), i.e. the runner account.
const app = new App();
const { stackName, props } = propsFromContext(app.node);
new RepriseStack(app, stackName, {
  reprise: props,
  env: { account: process.env[PLATFORM_ENV.cdkAccount], region: process.env[PLATFORM_ENV.cdkRegion] },
});
applyNagPacks(app);
app.synth();
