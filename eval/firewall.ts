/**
 * What keeps the held-out set held out, as checks the firewall test runs (eval/firewall.test.ts) and the freeze
 * records (eval/freeze-heldout.ts). No function here prints a held-out case: findings name files and counts only.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { KNOWLEDGE_DIR, REPO_ROOT } from '../src/core/paths.js';

/** Lower case, NFC, whitespace collapsed: how a text is compared with the repository's files. */
export function normaliseText(text: string): string {
  return text.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
}

export function textHash(text: string): string {
  return createHash('sha256').update(normaliseText(text)).digest('hex');
}

export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function walk(dir: string, skip: (rel: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const rel = relative(REPO_ROOT, path);
    if (skip(rel)) continue;
    if (statSync(path).isDirectory()) walk(path, skip, out);
    else out.push(path);
  }
  return out;
}

/** Every whole entry of knowledge/: each line's cells (tab-separated) and each `|`-separated name in a cell. */
export function knowledgeEntries(): Set<string> {
  const entries = new Set<string>();
  for (const path of walk(KNOWLEDGE_DIR, () => false)) {
    if (!['.tsv', '.txt'].includes(extname(path))) continue;
    for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
      if (line.trim() === '' || line.startsWith('#')) continue;
      for (const cell of line.split('\t')) {
        entries.add(normaliseText(cell));
        for (const name of cell.split('|')) entries.add(normaliseText(name));
      }
    }
  }
  entries.delete('');
  return entries;
}

/** sha256 of every knowledge/ file, in path order: the knowledge base as one value. */
export function knowledgeSha256(): string {
  const h = createHash('sha256');
  for (const path of walk(KNOWLEDGE_DIR, () => false).sort()) {
    h.update(relative(KNOWLEDGE_DIR, path));
    h.update(readFileSync(path));
  }
  return h.digest('hex');
}

/** Held-out texts that are whole knowledge-base entries, as hashes. */
export function knowledgeHits(texts: readonly string[]): Set<string> {
  const entries = knowledgeEntries();
  return new Set(texts.filter((t) => entries.has(normaliseText(t))).map(textHash));
}

const CODE_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs', '.cjs', '.py', '.sh', '.rs', '.json']);
const NOT_SOURCES = /(^|\/)(node_modules|dist|\.venv|cache|build|target|\.git|\.tap|runs|results)(\/|$)/;

/** Source files (code and its data) of the repository, outside generated and installed folders. */
export function sourceFiles(under: string): string[] {
  return walk(join(REPO_ROOT, under), (rel) => NOT_SOURCES.test(rel)).filter((p) => CODE_EXTENSIONS.has(extname(p)) || extname(p) === '');
}

/** How code names the held-out folder (a path, a path segment, the module that reads it). */
export const HELDOUT_REFERENCE = /eval[\\/]+heldout|['"`]eval['"`]\s*,\s*['"`]heldout['"`]|heldout\.(?:js|ts)\b|HELDOUT_DIR|loadHeldOutSets/;

/** Files of eval/ that may read the held-out set: the reader, the final scoring that calls it, the freeze and the
 * firewall itself. */
export const HELDOUT_READERS = new Set(['eval/heldout.ts', 'eval/run.ts', 'eval/firewall.ts', 'eval/firewall.test.ts', 'eval/freeze-heldout.ts']);

/** Code files that name the held-out folder and are not allowed to. */
export function heldOutReferencesOutsideReaders(): string[] {
  const roots = ['src', 'test', 'scripts', 'models', 'bench', 'bin', 'native', 'knowledge', 'eval', 'client', 'docs'];
  const found: string[] = [];
  for (const root of roots) {
    let files: string[];
    try {
      files = sourceFiles(root);
    } catch {
      continue; // a folder this checkout does not have
    }
    for (const path of files) {
      const rel = relative(REPO_ROOT, path);
      if (HELDOUT_READERS.has(rel) || rel.startsWith('eval/heldout/')) continue;
      if (HELDOUT_REFERENCE.test(readFileSync(path, 'utf8'))) found.push(rel);
    }
  }
  return found;
}

/** Held-out texts of two words or more found under src/ (word-bounded, case-insensitive), as hashes by file. Single
 * words are vocabulary, not cases: "Tea" may be a held-out item and a word of a comment. */
export function heldOutTextsInSources(texts: readonly string[]): { file: string; hashes: string[] }[] {
  const phrases = [...new Set(texts.map(normaliseText))].filter((t) => t.split(' ').length >= 2);
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const out: { file: string; hashes: string[] }[] = [];
  for (const path of sourceFiles('src')) {
    const body = normaliseText(readFileSync(path, 'utf8'));
    const hashes = phrases.filter((p) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(p)}(?![\\p{L}\\p{N}])`, 'u').test(body)).map(textHash);
    if (hashes.length > 0) out.push({ file: relative(REPO_ROOT, path), hashes });
  }
  return out;
}
