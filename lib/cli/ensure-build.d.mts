export function buildIsFresh(): boolean;
export function ensureBuilt(): void;
