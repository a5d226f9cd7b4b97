/**
 * The field readers every webhook payload and queue message is checked with: each answers the
 * value or throws a ShapeError that names the field at fault.
 */
import { ShapeError } from '../errors.js';

/** A JSON object as a payload or a queue message holds it. */
export type Obj = Record<string, unknown>;

/** The object at `at`, or a ShapeError naming the field. */
export const obj = (v: unknown, at: string): Obj => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ShapeError(`${at}: expected an object`);
  return v as Obj;
};
/** True for a JSON object (not null, not a list). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The id at `at.k`: a safe, non-negative integer, or a ShapeError naming the field. */
export const num = (o: Obj, k: string, at: string): number => {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ShapeError(`${at}.${k}: expected an id`);
  return v;
};
/** The non-empty string at `at.k`, or a ShapeError naming the field. */
export const str = (o: Obj, k: string, at: string): string => {
  const v = o[k];
  if (typeof v !== 'string' || v === '') throw new ShapeError(`${at}.${k}: expected a string`);
  return v;
};
/** The string at `at.k`, null when absent, or a ShapeError naming the field. */
export const optStr = (o: Obj, k: string, at: string): string | null => {
  const v = o[k];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new ShapeError(`${at}.${k}: expected a string or null`);
  return v;
};

/** `{ createdAt }` when the field holds a timestamp, `{}` when it is absent. */
export const optTime = (o: Obj, k: string, at: string): { createdAt?: string } => {
  const v = o[k];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw new ShapeError(`${at}.${k}: expected a timestamp`);
  return { createdAt: v };
};

/** `{ runNumber }` when the run carries its number, `{}` when it is absent. */
export const optRunNumber = (o: Obj, at: string): { runNumber?: number } =>
  o.run_number === undefined || o.run_number === null ? {} : { runNumber: num(o, 'run_number', at) };
