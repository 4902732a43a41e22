import { readFileSync } from 'node:fs';

/**
 * A fitted model's JSON file under models/ (a classifier head, the search ranker, a calibration), read and checked for
 * its format tag. `where` names the file from the repository root, for the caller's own shape errors.
 */
export function readFittedFile<T extends { format?: string }>(path: string, format: string): { raw: T; where: string } {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as T;
  const where = path.replace(/^.*\/models\//, 'models/');
  if (raw.format !== format) throw new Error(`${where}: format "${raw.format}", expected ${format}`);
  return { raw, where };
}
