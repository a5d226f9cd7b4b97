/** The tail a job leaves when its runner is shut down under it (DESIGN §2), as a job log. */
export const SHUTDOWN_LOG = [
  '2026-10-02T16:15:01.0000000Z ##[group]Run make test',
  '2026-10-02T16:15:05.7828522Z ##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.',
  '2026-10-02T16:15:05.9000000Z ##[error]The operation was canceled.',
  '2026-10-02T16:15:06.0000000Z Cleaning up orphan processes',
  '',
].join('\n');
