// One Lambda execution environment: loads a bundled handler once (its cold start) with the
// environment it was forked with, then runs each invocation sent over IPC, as a warm instance.
// Every name the code reads from process.env is recorded, so the test can hold the template's
// Environment to what the code reads while it runs.
/* global process */
const read = new Set();
const env = { ...process.env };
const note = (k) => typeof k === 'string' && read.add(k);
process.env = new Proxy(env, {
  get: (t, k) => (note(k), t[k]),
  has: (t, k) => (note(k), k in t),
  getOwnPropertyDescriptor: (t, k) => (note(k), Reflect.getOwnPropertyDescriptor(t, k)),
});

let handler;
try {
  ({ handler } = await import(process.argv[2]));
  process.send({ ready: true });
} catch (err) {
  process.send({ ready: false, error: { name: err.name, message: err.message } });
}

process.on('message', async ({ id, event, timeoutMs }) => {
  if (id === 'env-reads') return process.send({ id, result: [...read].sort() });
  const deadline = Date.now() + timeoutMs;
  const context = {
    awsRequestId: id,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(event, context);
    process.send({ id, result: result ?? null });
  } catch (err) {
    process.send({ id, error: { name: err.name, message: err.message } });
  }
});
