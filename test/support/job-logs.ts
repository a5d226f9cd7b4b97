// The reliability suites still import the shutdown log from here; its one definition is in evidence.ts.
export { SHUTDOWN_LOG } from './evidence.js';
