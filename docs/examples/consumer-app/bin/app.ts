import { App, Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Reprise } from 'reprise';

const app = new App();
const stack = new Stack(app, 'Runners');
new Reprise(stack, 'Reprise', { runnerPreset: 'cdk-github-runners', alarmEmail: 'ci@example.com' });
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
