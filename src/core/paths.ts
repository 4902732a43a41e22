import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checkout's root (the folder holding package.json), found by walking up from this file so that
 * the same code works from src/ under a TS loader and from dist/src/ after compilation.
 */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'knowledge'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('menu-intelligence: cannot find the repository root (package.json + knowledge/)');
    dir = parent;
  }
}

export const REPO_ROOT = findRepoRoot();
export const KNOWLEDGE_DIR = join(REPO_ROOT, 'knowledge');
export const MODELS_DIR = join(REPO_ROOT, 'models');
