import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventPublisher, RepriseEvent } from './types.js';
import { envelopeOf } from './kinds.js';

/**
 * The local runtime's events: one JSON line per event, in EventBridge's envelope, so a rule's
 * pattern can be tried on the file (`jq 'select(.detail.final_failure)'`). Appends are queued so
 * lines from concurrent publishers never interleave.
 */
export class JsonLinesEvents implements EventPublisher {
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  publish(event: RepriseEvent): Promise<void> {
    const line = `${JSON.stringify(envelopeOf(event))}\n`;
    const write = this.tail.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await appendFile(this.path, line, 'utf8');
    });
    this.tail = write.catch(() => undefined);
    return write;
  }
}
