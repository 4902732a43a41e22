#!/usr/bin/env node
// Cleans texts as the server does before embedding them (the knowledge base's TextCleaner, src/core/text/clean.ts, compiled in dist/), so a student is
// distilled on what the encoder is really fed. Reads a JSON array of strings from argv[2], writes the cleaned strings,
// in order, as a JSON array to argv[3]. Needs the compiled server: `npx tspc -p tsconfig.json`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cleanPath = join(root, 'dist', 'src', 'core', 'knowledge', 'index.js');
if (!existsSync(cleanPath)) {
  console.error(`[clean_texts] ${cleanPath} is missing: compile the server first (npx tspc -p tsconfig.json)`);
  process.exit(2);
}
const { loadKnowledge } = await import(pathToFileURL(cleanPath).href);
const cleaner = loadKnowledge().cleaner;
const texts = JSON.parse(readFileSync(process.argv[2], 'utf8'));
writeFileSync(process.argv[3], JSON.stringify(texts.map((t) => cleaner.cleanUncached(String(t)).text)));
