import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { FunctionName } from '../lib/config/settings-schema.js';
import { tableGrant } from '../lib/ledger/access.js';
import { acknowledge } from './nag.js';

/** The IAM condition key that bounds a request to the items of its partition keys. */
export const LEADING_KEYS = 'dynamodb:LeadingKeys';

/**
 * A function's table access as lib/ledger/access.ts declares it: each set of actions on the
 * partition-key patterns it belongs to (`ForAllValues:StringLike` on `dynamodb:LeadingKeys`, and
 * `Null: false` so a request that names no partition key is not let through by an empty set), and
 * Scan apart, for the one function whose sweep scans.
 */
export function grantTableAccess(table: Table, grantee: IGrantable, fn: FunctionName): void {
  const grant = tableGrant(fn);
  for (const g of grant.keyed) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: g.actions.map((a) => `dynamodb:${a}`),
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { [LEADING_KEYS]: [...g.leadingKeys] },
          Null: { [LEADING_KEYS]: 'false' },
        },
      }),
    );
  }
  if (grant.scan) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['dynamodb:Scan'], resources: [table.tableArn] }),
    );
  }
}

export interface StorageProps {
  readonly removalPolicy: RemovalPolicy;
}

/** The one table (deliveries, run-attempt ledger, runner signals, budgets, cursors) and the three secrets. */
export class Storage extends Construct {
  public readonly table: Table;
  /** `{"appId":"…","privateKey":"…"}`, filled by the operator after the first deploy. */
  public readonly githubAppSecret: Secret;
  public readonly webhookSecret: Secret;
  public readonly signalSecret: Secret;

  public constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'ttl',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The ledger is what keeps a re-run from happening twice; losing it by accident is worse than a manual delete.
      deletionProtection: props.removalPolicy !== RemovalPolicy.DESTROY,
      removalPolicy: props.removalPolicy,
    });

    // Placeholder values: CloudFormation writes them once and never again while the property is unchanged,
    // so the operator's `put-secret-value` survives later deploys.
    this.githubAppSecret = new Secret(this, 'GitHubAppSecret', {
      description: 'reprise: GitHub App credentials as {"appId":"…","privateKey":"-----BEGIN…"}',
      secretObjectValue: {
        appId: SecretValue.unsafePlainText(''),
        privateKey: SecretValue.unsafePlainText(''),
      },
      removalPolicy: props.removalPolicy,
    });
    this.webhookSecret = new Secret(this, 'WebhookSecret', {
      description: 'reprise: GitHub App webhook secret (generated); paste it into the App settings',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
      removalPolicy: props.removalPolicy,
    });
    this.signalSecret = new Secret(this, 'SignalSecret', {
      description: 'reprise: shared secret for POST /signals (bearer token or HMAC key)',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
      removalPolicy: props.removalPolicy,
    });

    const rotation =
      'has no rotation Lambda on purpose: its value is shared with a party outside AWS ' +
      '(%s), so a rotation must change both sides at once and is done by hand; see docs/deploy.md.';
    acknowledge(
      this.githubAppSecret,
      'AwsSolutions-SMG4',
      `The GitHub App private key ${rotation.replace('%s', 'the key is issued in the GitHub App settings')}`,
    );
    acknowledge(
      this.webhookSecret,
      'AwsSolutions-SMG4',
      `The webhook secret ${rotation.replace('%s', 'GitHub signs every delivery with it')}`,
    );
    acknowledge(
      this.signalSecret,
      'AwsSolutions-SMG4',
      `The signal secret ${rotation.replace('%s', 'the external agents posting runner signals hold it')}`,
    );
  }
}
