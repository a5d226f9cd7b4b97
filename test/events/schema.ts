/** docs/events.schema.json compiled once for the events' tests. */
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { readFile } from 'node:fs/promises';

const schema = JSON.parse(await readFile(new URL('../../docs/events.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv({ allErrors: true, strict: false });
// A CommonJS module seen from ESM: the plugin is its `default` export.
ajvFormats.default(ajv);
const validate = ajv.compile(schema);

/** The detail validates against docs/events.schema.json, or the errors say why not. */
export const shapeErrors = (detail: unknown): string => (validate(detail) ? '' : ajv.errorsText(validate.errors));
