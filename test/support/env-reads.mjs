// Loads one bundled handler with a process.env that records every name read, and prints them:
// what a function's code reads at its cold start, whatever module reads it.
/* global process, console */
const read = new Set();
const env = { ...process.env };
const note = (k) => typeof k === 'string' && read.add(k);
process.env = new Proxy(env, {
  get: (t, k) => (note(k), t[k]),
  has: (t, k) => (note(k), k in t),
  getOwnPropertyDescriptor: (t, k) => (note(k), Reflect.getOwnPropertyDescriptor(t, k)),
});
await import(process.argv[2]);
console.log(`ENV-READS ${JSON.stringify([...read].sort())}`);
