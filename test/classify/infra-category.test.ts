/**
 * GitHub's own infrastructure category (runner 2.329+, `infrastructureFailureCategory`): read
 * before the text where GitHub exposes it; today it exposes it nowhere, so the reader is a no-op
 * and the text decides. Fed the runner's published category names (actions/runner
 * src/Runner.Worker/ActionManager.cs).
 */
import { describe, expect, it } from 'vitest';
import { classifyJob } from '../../lib/classify/classify-job.js';
import { EXPOSED_FIELDS, readInfraCategory, RUNNER_INFRA_CATEGORIES } from '../../lib/classify/infra-category.js';
import { ann, evidence, failedJob } from '../support/fixtures.js';

/** The names the runner publishes for a job whose actions could not be set up. */
const PUBLISHED = ['resolve_action', 'error_download_action', 'invalid_action_download'] as const;

/** Where GitHub could expose it: a job field (REST and webhook spelling), an annotation property. */
const carriers = (category: string): object[] => [
  { infrastructure_failure_category: category },
  { infrastructureFailureCategory: category },
  { level: 'failure', title: null, message: 'Failed to resolve action download info.', category },
];

describe('GitHub exposes the runner’s category nowhere yet: the reader is a no-op', () => {
  it('no field is read', () => {
    expect(EXPOSED_FIELDS).toEqual([]);
  });

  it.each(PUBLISHED)('%s, on a job, a webhook payload or an annotation, reads as no category', (category) => {
    expect(readInfraCategory(carriers(category))).toBeUndefined();
  });

  it.each(PUBLISHED)('a job carrying %s is judged by its text alone', (category) => {
    const job = { ...failedJob(), infrastructureFailureCategory: category, infrastructure_failure_category: category };
    const c = classifyJob(job, evidence([ann('3 tests failed')]), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'genuine' } });
  });
});

describe('once a field is exposed, the category is read first', () => {
  const exposed = ['infrastructure_failure_category', 'infrastructureFailureCategory', 'category'];

  it.each([
    ['resolve_action', 'action-resolve'],
    ['error_download_action', 'action-download'],
    ['invalid_action_download', 'action-archive'],
  ])('%s is the platform evidence %s, wherever it is carried', (category, platform) => {
    for (const carrier of carriers(category)) {
      expect(readInfraCategory([carrier], exposed)).toEqual({ category, platform });
    }
  });

  it('the table maps exactly the published names', () => {
    expect(Object.keys(RUNNER_INFRA_CATEGORIES).sort()).toEqual([...PUBLISHED].sort());
  });

  it.each([
    ['a category that is the person’s own session', 'debugger_tunnel_failure'],
    ['an unknown name', 'resolve_actions'],
    ['a name of Object.prototype', 'constructor'],
    ['an empty one', ''],
  ])('%s reads as none', (_what, category) => {
    expect(readInfraCategory(carriers(category), exposed)).toBeUndefined();
  });

  it('a value that is not a string reads as none', () => {
    expect(readInfraCategory([{ category: ['resolve_action'] }, { category: 1 }], exposed)).toBeUndefined();
  });

  it('the first source that carries a known category wins', () => {
    const sources = [{ category: 'debugger_tunnel_failure' }, { category: 'error_download_action' }];
    expect(readInfraCategory(sources, exposed)?.category).toBe('error_download_action');
  });
});
