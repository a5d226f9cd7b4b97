/**
 * A clock of the time this process itself spends: each tick advances by the wall time since the
 * last one, but never by more than the CPU time the process used meanwhile. Pattern matching
 * burns CPU for as long as it runs, so it is counted in full; a neighbour taking the core on a
 * loaded machine (or the operating system descheduling the process) is not, so a time budget
 * read from it holds the same on a busy host as on an idle one.
 */
export function heldClock(): () => number {
  let held = 0;
  let wall = performance.now();
  let cpu = process.cpuUsage();
  return () => {
    const nowWall = performance.now();
    const used = process.cpuUsage(cpu);
    held += Math.max(0, Math.min(nowWall - wall, (used.user + used.system) / 1000));
    wall = nowWall;
    cpu = process.cpuUsage();
    return held;
  };
}
