import { App } from 'aws-cdk-lib';
import { propsFromContext } from './context.js';
import { applyNagPacks } from './nag.js';
import { RepriseStack } from './reprise-stack.js';

// Deploys into the account and region of the caller's credentials (CDK_DEFAULT_*), i.e. the runner account.
const app = new App();
const { stackName, props } = propsFromContext(app.node);
new RepriseStack(app, stackName, {
  reprise: props,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
applyNagPacks(app);
app.synth();
