import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Reprise, type RepriseProps } from './reprise.js';

/** Properties of {@link RepriseStack}. */
export interface RepriseStackProps extends StackProps {
  /**
   * Everything the {@link Reprise} construct takes.
   * @default - the construct's defaults
   */
  readonly reprise?: RepriseProps;
}

/** The deployable unit: one {@link Reprise}, whose outputs keep their plain names (`TableName`, …). */
export class RepriseStack extends Stack {
  public readonly reprise: Reprise;

  public constructor(scope: Construct, id: string, props: RepriseStackProps = {}) {
    super(scope, id, { description: 'reprise: re-runs GitHub Actions jobs lost to infrastructure', ...props });
    this.reprise = new Reprise(this, 'Reprise', props.reprise);
    for (const [name, output] of Object.entries(this.reprise.outputs)) output.overrideLogicalId(name);
  }
}
