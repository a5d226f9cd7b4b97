/**
 * Each function's construct (infra/functions/) owns its function, role, policy, log group and
 * triggers; their logical ids are the ones a deployed stack already has, so an upgrade updates
 * them in place and replaces nothing (a replaced log group or rule loses its history or events).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { synthReprise } from './synth.js';

/** The logical ids of a stack deployed before the constructs were split, by type. */
const DEPLOYED: readonly (readonly [string, string])[] = [
  ['RepriseIntakeLogs804EDCFF', 'AWS::Logs::LogGroup'],
  ['RepriseIntakeRole90AB4C0E', 'AWS::IAM::Role'],
  ['RepriseIntakeRoleDefaultPolicy27085FA6', 'AWS::IAM::Policy'],
  ['RepriseIntakeFunction46A67517', 'AWS::Lambda::Function'],
  ['RepriseWorkerLogs14B39215', 'AWS::Logs::LogGroup'],
  ['RepriseWorkerRole940F9915', 'AWS::IAM::Role'],
  ['RepriseWorkerRoleDefaultPolicyF39A2CAD', 'AWS::IAM::Policy'],
  ['RepriseWorkerFunction5C7D350B', 'AWS::Lambda::Function'],
  ['RepriseWorkerFunctionSqsEventSourceRepriseWorkQueueA9B1E9E7B0928E12', 'AWS::Lambda::EventSourceMapping'],
  ['RepriseEc2SignalLogs23041751', 'AWS::Logs::LogGroup'],
  ['RepriseEc2SignalRole23205BDC', 'AWS::IAM::Role'],
  ['RepriseEc2SignalRoleDefaultPolicyCBD6BC79', 'AWS::IAM::Policy'],
  ['RepriseEc2SignalFunctionCBE03465', 'AWS::Lambda::Function'],
  ['RepriseEc2SignalFunctionEventInvokeConfigE461DDF9', 'AWS::Lambda::EventInvokeConfig'],
  ['RepriseEc2SignalsInterruptionC824166F', 'AWS::Events::Rule'],
  ['RepriseEc2SignalsInterruptionAllowEventRuleRepriseEc2SignalFunction02E8F69E2F36F022', 'AWS::Lambda::Permission'],
  ['RepriseEc2SignalsTermination3E8A007B', 'AWS::Events::Rule'],
  ['RepriseEc2SignalsTerminationAllowEventRuleRepriseEc2SignalFunction02E8F69E05634B21', 'AWS::Lambda::Permission'],
  ['RepriseSignalIntakeLogsEB7FF2C0', 'AWS::Logs::LogGroup'],
  ['RepriseSignalIntakeRole9FD01935', 'AWS::IAM::Role'],
  ['RepriseSignalIntakeRoleDefaultPolicy67E10527', 'AWS::IAM::Policy'],
  ['RepriseSignalIntakeFunction10181B11', 'AWS::Lambda::Function'],
  ['RepriseReconcilerLogsF6CDA9DF', 'AWS::Logs::LogGroup'],
  ['RepriseReconcilerRoleD37B30A8', 'AWS::IAM::Role'],
  ['RepriseReconcilerRoleDefaultPolicy8DB6D1EB', 'AWS::IAM::Policy'],
  ['RepriseReconcilerFunction44A1174F', 'AWS::Lambda::Function'],
  ['RepriseReconcilerFunctionEventInvokeConfigD41B5298', 'AWS::Lambda::EventInvokeConfig'],
  ['RepriseReconcileSchedule71EDB047', 'AWS::Events::Rule'],
  ['RepriseReconcileScheduleAllowEventRuleRepriseReconcilerFunction4DEA6437506E4936', 'AWS::Lambda::Permission'],
];

/** Resources added since, each new (an upgrade creates it and replaces nothing). */
const ADDED: readonly (readonly [string, string])[] = [
  ['RepriseEc2SignalsAutoScalingTermination1C9CCAFB', 'AWS::Events::Rule'],
  [
    'RepriseEc2SignalsAutoScalingTerminationAllowEventRuleRepriseEc2SignalFunction02E8F69ECD78F145',
    'AWS::Lambda::Permission',
  ],
];

describe('the function constructs keep the logical ids a deployed stack has', () => {
  let resources: Record<string, { Type: string }>;
  beforeAll(() => {
    resources = synthReprise().template.toJSON().Resources as typeof resources;
  }, 120_000);

  it.each([...DEPLOYED, ...ADDED])('%s (%s)', (id, type) => {
    expect(resources[id]?.Type).toBe(type);
  });

  it('and no other resource of theirs', () => {
    const prefixes = ['RepriseIntake', 'RepriseWorker', 'RepriseEc2Signal', 'RepriseSignalIntake', 'RepriseReconcile'];
    const theirs = Object.keys(resources).filter((id) => prefixes.some((p) => id.startsWith(p)));
    expect(theirs.sort()).toEqual([...DEPLOYED, ...ADDED].map(([id]) => id).sort());
  });
});
