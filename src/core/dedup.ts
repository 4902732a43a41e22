import type { Knowledge } from './knowledge/index.js';
import { dishWords, dishWordsOfKey } from './dish-words.js';
import { wordDifference } from './defining-words.js';
import { conflicts } from './items.js';
import type { MenuText } from './menu-text.js';
import { judgePairs, nameWordKeys, sameNameWords, withoutAccompaniments, type PairPrecision } from './match.js';
import { allPairsAboveAsync, cosineTopKAsync, unionFind } from '../native/index.js';
import { dot } from './inference/encoder.js';
import { ANN_SCORE_SLACK, createAnnIndex, rangeSearch, type AnnEngine, type AnnIndex, type AnnParams } from './ann.js';
import { roundScore } from './number-format.js';

export { dishWords };
export { definingWordDifference } from './defining-words.js';

/**
 * Duplicate clusters in one menu, shared by POST /dedup and POST /report (which embeds each item once and hands the
 * vectors here).
 *
 * 1. Items whose cleaned texts are the same name (case and punctuation aside) are one node: "Chicken Biryani Half"
 *    and "Chicken Biryani (Full)" both clean to "Chicken Biryani", and exact repeats are always one cluster.
 * 2. Candidate edges between nodes: every pair whose cosine reaches the threshold (native all-pairs), plus every
 *    pair of names the knowledge base lists for one dish (synonyms the encoder scores low: Butter Chicken / Murgh
 *    Makhani, cosine 0.15).
 * 3. Each edge is judged: the cosine threshold (waived for knowledge-base synonyms), the dish-defining word guard
 *    (Garlic vs Butter Naan, Dry vs Gravy, X vs X Biryani, Eggless vs plain, Coke vs Pepsi: see
 *    definingWordDifference), then the precision stage shared with /match (judgePairs: diet and protein conflicts,
 *    knowledge-base identity, a cross-encoder when one is loaded).
 * 4. Union-find over the accepted edges, then the anti-chaining split: a group keeps the members that match its core
 *    (the member with the most accepted similarity inside it) and are compatible with every other member kept (no
 *    conflict, no defining word difference); the rest are clustered again among themselves, so A~B~C~D never pulls
 *    A and D together through a chain of near neighbours.
 *
 * Lowering the threshold groups more aggressively: more pairs pass step 3's cosine test; the guards still hold.
 */

/** Per cluster, at most this many pairwise scores are returned (a cluster of 15 has 105 pairs). */
export const MAX_PAIRWISE_SCORES = 100;
/**
 * Above this many candidate edges per node on average (only with very low thresholds: at 0 every pair is one), the
 * candidates are each node's nearest neighbours above the threshold instead: the precision stage then costs O(n)
 * instead of O(n²). Clusters are unchanged in practice: a duplicate is among a name's nearest few, and the
 * anti-chaining split cuts weak links anyway.
 */
export const MAX_CANDIDATES_PER_ITEM = 24;
/** Knowledge-base synonym groups larger than this are linked as a star around their first member. */
const MAX_SYNONYM_CLIQUE = 24;
/** Name-word blocking groups larger than this are skipped: their pairs cost O(size²) and share only a common word. */
const MAX_NAME_WORD_GROUP = 64;

export interface DedupOptions {
  readonly cosineThreshold: number;
  /** What scores pairs after the knowledge base (services.pairPrecision()). */
  readonly precision: PairPrecision;
  readonly maxPairwiseScores?: number;
  /** Where candidate pairs come from (default: all-pairs below ANN_CROSSOVER_NODES nodes, the HNSW index above). */
  readonly candidates?: CandidateSource;
  /** The pair decision (default: precisionJudge of these options). */
  readonly judge?: PairJudge;
}

export interface PairwiseScore {
  /** Item indices (into the submitted list), a before b in submission order. */
  readonly a: number;
  readonly b: number;
  /** Cosine of the cleaned texts' 384-d embeddings, raised to the precision stage's knowledge-base probability
   * (MatchGates.knowledgeSame) for knowledge-base synonyms. */
  readonly score: number;
}

export interface DuplicateGroup {
  /** Item indices in submission order (at least two). */
  readonly members: readonly number[];
  /** The shortest member (by characters of the original text); ties go to the earliest. */
  readonly canonical: number;
  readonly pairwise: readonly PairwiseScore[];
  readonly pairwiseTruncated: boolean;
}

export interface DedupOutcome {
  /** Ordered by their first member's position in the submission. */
  readonly clusters: readonly DuplicateGroup[];
  /** Item indices with no duplicate, in submission order. */
  readonly singletons: readonly number[];
  /** Σ (cluster size − 1). */
  readonly duplicateItems: number;
  /** Diagnostics: distinct names, candidate edges judged, edges accepted, components split by the chaining guard. */
  readonly stats: { readonly nodes: number; readonly candidates: number; readonly accepted: number; readonly chainSplits: number };
}

/** The key under which items are the same name: nameKey of the cleaned text, or of the original when cleaning left nothing. */
export function nodeKey(text: MenuText): string {
  return nodeKeyOf(text.key, text.original);
}

/** nodeKey from a cleaned text's name key (MenuText.key) and the original, for callers that hold the two apart. */
export function nodeKeyOf(cleanedKey: string, original: string): string {
  return cleanedKey !== '' ? cleanedKey : `\u0000${original.trim().toLowerCase()}`;
}

/**
 * What clustering works on: one node per distinct name (nodeKey), with the menu text and unit vector of the first
 * item that had it. Built by dedupPrepared for one menu and by the catalog engine for a whole catalog.
 */
export interface NodeSet {
  readonly count: number;
  readonly dim: number;
  /** The menu text of each node (its first item's); the stages read its cleaned text's reading. */
  readonly text: readonly MenuText[];
  /** count × dim, row-major, each row a unit vector. */
  readonly matrix: Float32Array;
  /** dishWords of each node's text. */
  readonly words: readonly (readonly string[])[];
  /** The knowledge-base dish each node's text exactly names, or null. */
  readonly exactDish: readonly (number | null)[];
  /**
   * Each node's dish as listed: its dish words without the accompaniments it lists ("… With Raita Or Gravy",
   * match.ts withoutAccompaniments) and without the words that only say a serving (lexicon/serving_words.tsv, kinds
   * group and single: Bucket, Family, Feast, Solo, Mini), sorted and joined; null when fewer than two words remain.
   * Two nodes with the same key, one of them naming a serving or listing accompaniments, are one dish in two sizes or
   * servings ("Mutton Kheema Biryani" / "Mutton Kheema Bucket Biryani (Serves 6-7)").
   */
  readonly servingFree: readonly (string | null)[];
  /** Whether each node's name says a serving or lists accompaniments (its servingFree key drops words). */
  readonly namesServing: readonly boolean[];
}

/** A NodeSet from node texts and their vectors as one matrix. */
export function nodeSet(text: readonly MenuText[], matrix: Float32Array, dim: number): NodeSet {
  if (matrix.length !== text.length * dim) throw new Error(`nodeSet: ${text.length} texts, ${matrix.length / dim} vectors`);
  const serving = text.length === 0 ? new Set<string>() : servingWords(text[0]!.knowledge);
  const words = text.map((t) => t.dishWords);
  const listed = text.map((t) => {
    const withoutSides = withoutAccompaniments(t.knowledge, t.text);
    return (withoutSides === null ? t.dishWords : dishWordsOfKey(t.knowledge, withoutSides)).filter((w) => !serving.has(w));
  });
  const servingFree = listed.map((rest) => (rest.length >= 2 ? [...rest].sort().join(' ') : null));
  const namesServing = listed.map((rest, i) => rest.length < words[i]!.length);
  return { count: text.length, dim, text, matrix, words, exactDish: text.map((t) => t.exactDishId), servingFree, namesServing };
}

/** The one-word serving words of kinds group and single (serving_words.tsv). */
function servingWords(k: Knowledge): ReadonlySet<string> {
  return new Set([...k.words.serving.group, ...k.words.serving.single].filter((w) => !w.includes(' ')));
}

/** Nodes that are one dish in two servings: the same servingFree key, and one of them names a serving. */
function servingsOfOne(nodes: NodeSet, i: number, j: number): boolean {
  const key = nodes.servingFree[i]!;
  return key !== null && key === nodes.servingFree[j] && (nodes.namesServing[i]! || nodes.namesServing[j]!);
}

/**
 * One name carries a word that marks a menu's house version and the other does not (lexicon/filler_words.tsv kind
 * menu_label): on one menu, "Special Masala Dosa" beside "Masala Dosa" is a second item at a second price.
 */
function housePlainApart(k: Knowledge, nodes: NodeSet, i: number, j: number): boolean {
  const label = k.words.menuLabel;
  const a = nodes.text[i]!.words.filter((w) => label.has(w)), b = nodes.text[j]!.words.filter((w) => label.has(w));
  return a.length !== b.length || a.some((w) => !b.includes(w));
}

/** Dish words without the serving words when the two nodes are servings of one dish (what the word guard compares). */
function guardWords(nodes: NodeSet, i: number, j: number): [readonly string[], readonly string[]] {
  if (!servingsOfOne(nodes, i, j)) return [nodes.words[i]!, nodes.words[j]!];
  const key = nodes.servingFree[i]!.split(' ');
  return [key, key];
}

function nodeCosine(nodes: NodeSet, i: number, j: number): number {
  const d = nodes.dim;
  const m = nodes.matrix;
  let s = 0;
  for (let k = 0, x = i * d, y = j * d; k < d; k++) s += m[x + k]! * m[y + k]!;
  return s;
}

/** Items grouped into nodes: the nodes plus which items each one holds. */
interface MenuNodes {
  readonly nodes: NodeSet;
  /** node → its items (submission order). */
  readonly items: readonly number[][];
  /** item → node. */
  readonly nodeOf: Int32Array;
}

function buildNodes(texts: readonly MenuText[], vectors: readonly Float32Array[]): MenuNodes {
  const byKey = new Map<string, number>();
  const items: number[][] = [];
  const text: MenuText[] = [];
  const first: number[] = [];
  const nodeOf = new Int32Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const key = nodeKey(texts[i]!);
    let node = byKey.get(key);
    if (node === undefined) {
      node = items.length;
      byKey.set(key, node);
      items.push([]);
      text.push(texts[i]!);
      first.push(i);
    }
    items[node]!.push(i);
    nodeOf[i] = node;
  }
  const dim = vectors[0]?.length ?? 0;
  const matrix = new Float32Array(text.length * dim);
  first.forEach((item, node) => matrix.set(vectors[item]!, node * dim));
  return { nodes: nodeSet(text, matrix, dim), items, nodeOf };
}

/** Candidate similarity edges between nodes, as parallel arrays (each pair once, lo < hi). */
export interface CandidateEdges {
  readonly a: ArrayLike<number>;
  readonly b: ArrayLike<number>;
  readonly cosine: ArrayLike<number>;
}

/**
 * Where candidate pairs come from: every pair of nodes whose cosine reaches the threshold, or, when that is more than
 * MAX_CANDIDATES_PER_ITEM per node on average, each node's MAX_CANDIDATES_PER_ITEM nearest neighbours above it.
 * Two implementations give the same pairs: exact all-pairs (allPairsCandidates) and an HNSW index (indexCandidates,
 * over ann.ts), which is faster from ANN_CROSSOVER_NODES names on.
 */
export type CandidateSource = (nodes: NodeSet, threshold: number) => Promise<CandidateEdges>;

/** Exact: the native all-pairs kernel (O(n²) dot products). */
export const allPairsCandidates: CandidateSource = async (nodes, threshold) => {
  const n = nodes.count;
  if (n < 2) return { a: [], b: [], cosine: [] };
  const pairs = await allPairsAboveAsync(nodes.matrix, nodes.dim, threshold);
  if (pairs.a.length <= n * MAX_CANDIDATES_PER_ITEM) return { a: pairs.a, b: pairs.b, cosine: pairs.score };
  // A very low threshold: each node's nearest neighbours above it instead of every pair (see the constant).
  const k = Math.min(n, MAX_CANDIDATES_PER_ITEM + 1);
  const top = await cosineTopKAsync(nodes.matrix, nodes.matrix, nodes.dim, k);
  const a: number[] = [];
  const b: number[] = [];
  const cosine: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < k; r++) {
      const j = top.indices[i * k + r]!;
      const c = top.scores[i * k + r]!;
      if (j >= 0 && j !== i && c >= threshold) {
        a.push(i);
        b.push(j);
        cosine.push(c);
      }
    }
  }
  return { a, b, cosine };
};

/**
 * From this many distinct names on, the HNSW index finds the candidate pairs faster than exact all-pairs. The Rust
 * all-pairs kernel is fast: on 20k real names it took 2.4 s against the index's 7.7 s (build + range query); fitting
 * a·n² and b·n·log n to the measurements from 4k to 20k names puts the crossover near 61k (bench/catalog.bench.mjs,
 * docs/catalog.md). /dedup and /report (2000 items at most) therefore always run all-pairs.
 */
export const ANN_CROSSOVER_NODES = 60_000;

function defaultCandidateSource(nodeCount: number): CandidateSource {
  return nodeCount >= ANN_CROSSOVER_NODES ? indexCandidates() : allPairsCandidates;
}

/**
 * The same pairs as allPairsCandidates, from an HNSW index over the node vectors (ann.ts): a range search at the
 * threshold, or each node's nearest neighbours when the pairs would pass MAX_CANDIDATES_PER_ITEM per node. Cosines
 * are recomputed exactly from the vectors, so the judge sees the same numbers whichever source found a pair.
 */
export function indexCandidates(options: { engine?: AnnEngine; params?: AnnParams; onProgress?: (phase: 'build' | 'query', done: number, total: number) => void } = {}): CandidateSource {
  return async (nodes, threshold) => {
    const n = nodes.count;
    if (n < 2) return { a: [], b: [], cosine: [] };
    const index = createAnnIndex(nodes.dim, { engine: options.engine, params: options.params, capacity: n });
    const block = 8192;
    for (let start = 0; start < n; start += block) {
      const end = Math.min(n, start + block);
      index.add(nodes.matrix.subarray(start * nodes.dim, end * nodes.dim), start);
      options.onProgress?.('build', end, n);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return queryIndexCandidates(index, nodes, threshold, 0, n, options.onProgress);
  };
}

/**
 * Candidate pairs between the nodes [from, to) and an index over some nodes (all of them, or one shard in a
 * distributed run), lo < hi, each pair once. The same limit as allPairsCandidates: past MAX_CANDIDATES_PER_ITEM pairs
 * per node on average, each node's nearest MAX_CANDIDATES_PER_ITEM above the threshold.
 */
export async function queryIndexCandidates(
  index: AnnIndex,
  nodes: NodeSet,
  threshold: number,
  from: number,
  to: number,
  onProgress?: (phase: 'build' | 'query', done: number, total: number) => void,
): Promise<{ a: number[]; b: number[]; cosine: number[] }> {
  const n = nodes.count;
  const a: number[] = [];
  const b: number[] = [];
  const cosine: number[] = [];
  const seen = new Set<number>();
  const add = (i: number, j: number): void => {
    if (i === j) return;
    const [lo, hi] = i < j ? [i, j] : [j, i];
    if (seen.has(lo * n + hi)) return;
    seen.add(lo * n + hi);
    const c = nodeCosine(nodes, lo, hi);
    if (c < threshold) return;
    a.push(lo);
    b.push(hi);
    cosine.push(c);
  };
  const queries = nodes.matrix.subarray(from * nodes.dim, to * nodes.dim);
  const limit = n * MAX_CANDIDATES_PER_ITEM;
  const { saturated } = await rangeSearch(index, queries, threshold - ANN_SCORE_SLACK, (q, key) => add(from + q, key), {
    maxK: Math.min(index.size(), 4 * MAX_CANDIDATES_PER_ITEM * 16),
    onBlock: (done, total) => onProgress?.('query', done, total),
  });
  if (!saturated && a.length <= limit) return { a, b, cosine };
  a.length = b.length = cosine.length = 0;
  seen.clear();
  const k = Math.min(index.size(), MAX_CANDIDATES_PER_ITEM + 1);
  const hits = index.search(queries, k);
  for (let q = 0; q < to - from; q++) {
    for (let r = 0; r < k; r++) {
      const key = hits.keys[q * k + r]!;
      if (key >= 0 && hits.scores[q * k + r]! >= threshold - ANN_SCORE_SLACK) add(from + q, key);
    }
  }
  return { a, b, cosine };
}

/** Candidate edges (lo < hi, each once): the similarity candidates plus every pair of knowledge-base synonyms. */
async function candidateEdges(nodes: NodeSet, threshold: number, source: CandidateSource): Promise<{ a: number[]; b: number[]; cosine: number[] }> {
  const n = nodes.count;
  const a: number[] = [];
  const b: number[] = [];
  const cosine: number[] = [];
  const seen = new Set<number>();
  const add = (i: number, j: number, c: number): void => {
    const [lo, hi] = i < j ? [i, j] : [j, i];
    if (lo === hi || seen.has(lo * n + hi)) return;
    seen.add(lo * n + hi);
    a.push(lo);
    b.push(hi);
    cosine.push(c);
  };
  const similar = await source(nodes, threshold);
  // In (lo, hi) order whatever the source's order, so the chaining guard's sums add up the same way for every source.
  const order = Array.from({ length: similar.a.length }, (_, k) => k);
  const lo = (k: number): number => Math.min(similar.a[k]!, similar.b[k]!);
  const hi = (k: number): number => Math.max(similar.a[k]!, similar.b[k]!);
  order.sort((x, y) => lo(x) - lo(y) || hi(x) - hi(y));
  for (const k of order) add(similar.a[k]!, similar.b[k]!, similar.cosine[k]!);
  // Synonyms: nodes that are, exactly, names of one knowledge-base dish are candidates whatever their cosine. Servings:
  // the same dish words but for a serving word are too.
  const byDish = groupNodes(n, (i) => nodes.exactDish[i]!);
  const byServingFree = groupNodes(n, (i) => nodes.servingFree[i]!);
  for (const group of [...byDish.values(), ...[...byServingFree.values()].filter((g) => g.some((i) => nodes.namesServing[i]))]) {
    for (let x = 0; x < group.length; x++) {
      for (let y = x + 1; y < group.length; y++) {
        if (group.length > MAX_SYNONYM_CLIQUE && x > 0) break;
        add(group[x]!, group[y]!, nodeCosine(nodes, group[x]!, group[y]!));
      }
    }
  }
  // One name by their words (a translation, a misspelling, a split word): blocked by the keys such pairs share, and
  // kept only when the words really are one name. A key most nodes share says nothing (a lone "chicken" left over).
  const byNameWords = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    for (const key of nameWordKeys(nodes.text[i]!)) {
      const list = byNameWords.get(key);
      if (list) list.push(i);
      else byNameWords.set(key, [i]);
    }
  }
  for (const group of byNameWords.values()) {
    if (group.length < 2 || group.length > MAX_NAME_WORD_GROUP) continue;
    for (let x = 0; x < group.length; x++) {
      for (let y = x + 1; y < group.length; y++) {
        if (sameNameWords(nodes.text[group[x]!]!, nodes.text[group[y]!]!)) add(group[x]!, group[y]!, nodeCosine(nodes, group[x]!, group[y]!));
      }
    }
  }
  return { a, b, cosine };
}

/** Node indices grouped by a key (null: in no group), each group in index order. */
function groupNodes<K>(n: number, keyOf: (i: number) => K | null): Map<K, number[]> {
  const groups = new Map<K, number[]>();
  for (let i = 0; i < n; i++) {
    const key = keyOf(i);
    if (key === null) continue;
    const list = groups.get(key);
    if (list) list.push(i);
    else groups.set(key, [i]);
  }
  return groups;
}

/**
 * The decision "are these two nodes one item?": the seam between candidate generation and union-find. The default
 * is precisionJudge; a learned pair judge can take its place without touching candidates or clustering.
 */
export interface PairJudge {
  /** One verdict per pair (node indices) with the pair's cosine. */
  judge(nodes: NodeSet, pairs: readonly (readonly [number, number])[], cosines: readonly number[]): Promise<boolean[]>;
}

/**
 * The steps the dedup decision takes before the precision stage it shares with /match, in order; a pair refused by
 * one of them is two items whatever the precision stage would say:
 *   - `house_label`: one name carries a house-version word the other lacks (housePlainApart);
 *   - `below_threshold`: the cosine is under the threshold and the knowledge base does not list both names, exactly,
 *     for one dish, nor are they one dish in two servings or one name by their words (a fuzzy resolution is not
 *     enough: "Mayones Cheese Sandwich" is not simply a Cheese Sandwich on a menu that has both);
 *   - `defining_word`: the dish-defining word guard sees a word that makes a second item (definingWordDifference).
 * /match takes none of these steps, so every pair /match calls the same dish and a two-item /dedup keeps apart is
 * refused here (the agreement eval counts them by step).
 */
export type DedupRefusal = 'house_label' | 'below_threshold' | 'defining_word';

export function dedupRefusal(k: Knowledge, nodes: NodeSet, i: number, j: number, cosine: number, cosineThreshold: number): DedupRefusal | null {
  if (housePlainApart(k, nodes, i, j)) return 'house_label';
  const synonyms = nodesAreSynonyms(nodes, i, j);
  if (!synonyms && !servingsOfOne(nodes, i, j) && cosine < cosineThreshold && !sameNameWords(nodes.text[i]!, nodes.text[j]!)) return 'below_threshold';
  return wordDifference(k, ...guardWords(nodes, i, j), synonyms) === null ? null : 'defining_word';
}

/** dedupRefusal of two texts as a two-item menu holds them (a node each), with their unit vectors and their cosine. */
export function pairRefusal(k: Knowledge, a: MenuText, b: MenuText, va: Float32Array, vb: Float32Array, cosineThreshold: number): { cosine: number; step: DedupRefusal | null } {
  const matrix = new Float32Array(va.length + vb.length);
  matrix.set(va, 0);
  matrix.set(vb, va.length);
  const cosine = dot(va, vb);
  return { cosine, step: dedupRefusal(k, nodeSet([a, b], matrix, va.length), 0, 1, cosine, cosineThreshold) };
}

/**
 * The dedup decision for node pairs, cheapest test first: no dedupRefusal, then the shared precision stage
 * (judgePairs, as in /match: diet and protein conflicts, knowledge-base identity, calibrated cosine or a
 * cross-encoder) must say "match".
 */
export function precisionJudge(k: Knowledge, options: Pick<DedupOptions, 'cosineThreshold' | 'precision'>): PairJudge {
  return {
    async judge(nodes, pairs, cosines) {
      const accepted = pairs.map(([i, j], e) => dedupRefusal(k, nodes, i, j, cosines[e]!, options.cosineThreshold) === null);
      const judged = accepted.flatMap((ok, e) => (ok ? [e] : []));
      if (judged.length === 0) return accepted;
      const verdicts = await judgePairs(
        k,
        judged.map((e) => [nodes.text[pairs[e]![0]]!, nodes.text[pairs[e]![1]]!] as const),
        judged.map((e) => cosines[e]!),
        options.cosineThreshold,
        options.precision,
        { verdictsOnly: true },
      );
      judged.forEach((e, v) => (accepted[e] = verdicts[v]!.match));
      return accepted;
    },
  };
}

/** Both names are, exactly, a name or alias of the same knowledge-base dish (Devanagari transliterated). */
export function knownSynonyms(a: MenuText, b: MenuText): boolean {
  return a.exactDishId !== null && a.exactDishId === b.exactDishId;
}

function nodesAreSynonyms(nodes: NodeSet, i: number, j: number): boolean {
  const id = nodes.exactDish[i]!;
  return id !== null && id === nodes.exactDish[j];
}

/** Connected components of `members` under `adjacency` restricted to them (each sorted ascending). */
function componentsWithin(members: readonly number[], adjacency: ReadonlyMap<number, ReadonlyMap<number, number>>): number[][] {
  const inSet = new Set(members);
  const seen = new Set<number>();
  const out: number[][] = [];
  for (const start of members) {
    if (seen.has(start)) continue;
    const comp: number[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const x = stack.pop()!;
      comp.push(x);
      for (const y of adjacency.get(x)?.keys() ?? []) {
        if (inSet.has(y) && !seen.has(y)) {
          seen.add(y);
          stack.push(y);
        }
      }
    }
    out.push(comp.sort((p, q) => p - q));
  }
  return out;
}

/**
 * Two members may share a cluster: no diet or protein conflict and no dish-defining word difference between them.
 * Checked for every pair of a cluster, so a star of knowledge-base variants around one name (Thatte Idli with Ghee
 * Thatte Idli and Butter Thatte Idli) cannot put two different variants together.
 */
function compatible(k: Knowledge, nodes: NodeSet, x: number, y: number): boolean {
  if (housePlainApart(k, nodes, x, y) || wordDifference(k, ...guardWords(nodes, x, y), nodesAreSynonyms(nodes, x, y)) !== null) return false;
  const flags = conflicts(k, nodes.text[x]!.profile, nodes.text[y]!.profile);
  return !flags.dietary_conflict && !flags.protein_conflict;
}

/**
 * Splits a component until every group's members match its core and are compatible with each other. The core is
 * the member with the largest sum of accepted-edge cosines inside the group (ties: the lowest node); members not
 * linked to it by an accepted edge are judged against it directly. Members join the core's group nearest first
 * while they are compatible with everyone already in it; the rest leave and are clustered again among themselves.
 */
async function splitChains(
  k: Knowledge,
  component: readonly number[],
  nodes: NodeSet,
  adjacency: ReadonlyMap<number, ReadonlyMap<number, number>>,
  judge: PairJudge,
): Promise<{ groups: number[][]; splits: number }> {
  const groups: number[][] = [];
  let splits = 0;
  const queue: number[][] = [[...component]];
  while (queue.length > 0) {
    const group = queue.shift()!;
    if (group.length <= 2) {
      groups.push(group);
      continue;
    }
    const inGroup = new Set(group);
    let core = group[0]!;
    let best = -Infinity;
    for (const x of group) {
      let sum = 0;
      for (const [y, c] of adjacency.get(x) ?? []) if (inGroup.has(y)) sum += c;
      if (sum > best) {
        best = sum;
        core = x;
      }
    }
    const coreEdges = adjacency.get(core);
    const unlinked = group.filter((x) => x !== core && !coreEdges?.has(x));
    const verdicts = await judge.judge(
      nodes,
      unlinked.map((x) => [Math.min(x, core), Math.max(x, core)] as const),
      unlinked.map((x) => nodeCosine(nodes, x, core)),
    );
    const matchesCore = new Set(group.filter((x) => x !== core && coreEdges?.has(x)));
    unlinked.forEach((x, e) => verdicts[e] && matchesCore.add(x));
    const candidates = [...matchesCore]
      .map((x) => ({ x, cosine: nodeCosine(nodes, x, core) }))
      .sort((p, q) => q.cosine - p.cosine || p.x - q.x);
    const kept = [core];
    for (const { x } of candidates) if (kept.every((y) => compatible(k, nodes, x, y))) kept.push(x);
    if (kept.length === group.length) {
      groups.push(group);
      continue;
    }
    splits++;
    const keptSet = new Set(kept);
    groups.push(kept.sort((p, q) => p - q));
    queue.push(...componentsWithin(group.filter((x) => !keptSet.has(x)), adjacency));
  }
  return { groups, splits };
}

function pairwiseScores(
  members: readonly number[],
  canonical: number,
  menu: MenuNodes,
  vectors: readonly Float32Array[],
  cap: number,
  synonymScore: number,
): { pairwise: PairwiseScore[]; truncated: boolean } {
  const nodes = menu.nodes;
  const total = (members.length * (members.length - 1)) / 2;
  // Pairs with the canonical first, so a capped list still relates every member to the cluster's name.
  const order: [number, number][] = [];
  for (const m of members) if (m !== canonical) order.push(canonical < m ? [canonical, m] : [m, canonical]);
  for (let x = 0; x < members.length && order.length < cap; x++) {
    for (let y = x + 1; y < members.length && order.length < cap; y++) {
      if (members[x] === canonical || members[y] === canonical) continue;
      order.push([members[x]!, members[y]!]);
    }
  }
  const pairwise = order.slice(0, cap).map(([a, b]) => {
    const na = menu.nodeOf[a]!;
    const nb = menu.nodeOf[b]!;
    let score = na === nb ? 1 : Math.min(1, Math.max(0, dot(vectors[a]!, vectors[b]!)));
    if (na !== nb && nodesAreSynonyms(nodes, na, nb)) {
      score = Math.max(score, synonymScore);
    }
    return { a, b, score: roundScore(score) };
  });
  return { pairwise, truncated: total > pairwise.length };
}

/** What clustering found over a NodeSet. */
export interface NodeClustering {
  /** Groups of node indices, each sorted ascending (singleton groups included), in no particular order. */
  readonly groups: readonly (readonly number[])[];
  readonly stats: DedupOutcome['stats'];
}

/**
 * The clustering every dedup runs, one code path for /dedup, /report and catalog runs: candidate edges (the source
 * plus knowledge-base synonyms) → the judge → union-find over accepted edges → the anti-chaining split.
 */
export async function clusterNodes(
  k: Knowledge,
  nodes: NodeSet,
  options: DedupOptions,
  hooks: { readonly onPhase?: (phase: 'candidates' | 'judge' | 'split', done: number, total: number) => void } = {},
): Promise<NodeClustering> {
  const judge = options.judge ?? precisionJudge(k, options);
  const source = options.candidates ?? defaultCandidateSource(nodes.count);
  hooks.onPhase?.('candidates', 0, nodes.count);
  const edges = await candidateEdges(nodes, options.cosineThreshold, source);
  hooks.onPhase?.('judge', 0, edges.a.length);
  const accepted: boolean[] = [];
  // Judged in blocks so a caller can show progress and the event loop (Ctrl-C) is not starved on big catalogs.
  const block = 20_000;
  for (let start = 0; start < edges.a.length; start += block) {
    const end = Math.min(edges.a.length, start + block);
    const pairs: (readonly [number, number])[] = [];
    for (let e = start; e < end; e++) pairs.push([edges.a[e]!, edges.b[e]!]);
    accepted.push(...(await judge.judge(nodes, pairs, edges.cosine.slice(start, end))));
    hooks.onPhase?.('judge', end, edges.a.length);
  }

  const adjacency = new Map<number, Map<number, number>>();
  const link = (x: number, y: number, c: number): void => {
    let m = adjacency.get(x);
    if (!m) adjacency.set(x, (m = new Map()));
    m.set(y, c);
  };
  const ea: number[] = [];
  const eb: number[] = [];
  for (let e = 0; e < accepted.length; e++) {
    if (!accepted[e]) continue;
    ea.push(edges.a[e]!);
    eb.push(edges.b[e]!);
    link(edges.a[e]!, edges.b[e]!, edges.cosine[e]!);
    link(edges.b[e]!, edges.a[e]!, edges.cosine[e]!);
  }
  const labels = unionFind(nodes.count, Uint32Array.from(ea), Uint32Array.from(eb));
  const components = new Map<number, number[]>();
  for (let i = 0; i < nodes.count; i++) {
    const list = components.get(labels[i]!);
    if (list) list.push(i);
    else components.set(labels[i]!, [i]);
  }

  const groups: number[][] = [];
  let chainSplits = 0;
  let done = 0;
  hooks.onPhase?.('split', 0, nodes.count);
  for (const comp of components.values()) {
    if (comp.length <= 2) groups.push(comp);
    else {
      const split = await splitChains(k, comp, nodes, adjacency, judge);
      groups.push(...split.groups);
      chainSplits += split.splits;
    }
    done += comp.length;
    if (comp.length > 2) hooks.onPhase?.('split', done, nodes.count);
  }
  hooks.onPhase?.('split', nodes.count, nodes.count);
  return { groups, stats: { nodes: nodes.count, candidates: edges.a.length, accepted: ea.length, chainSplits } };
}

/**
 * Clusters already read and embedded items. `vectors` are the unit 384-d embeddings of the cleaned texts, one per
 * item (items with the same cleaned text may share one). Deterministic: the same input gives the same output.
 */
export async function dedupPrepared(
  k: Knowledge,
  texts: readonly MenuText[],
  vectors: readonly Float32Array[],
  options: DedupOptions,
): Promise<DedupOutcome> {
  if (texts.length !== vectors.length) {
    throw new Error(`dedupPrepared: ${texts.length} items, ${vectors.length} vectors`);
  }
  const originals = texts.map((t) => t.original);
  const menu = buildNodes(texts, vectors);
  const { groups: nodeGroups, stats } = await clusterNodes(k, menu.nodes, options);

  const cap = options.maxPairwiseScores ?? MAX_PAIRWISE_SCORES;
  const clusters: DuplicateGroup[] = [];
  const singletons: number[] = [];
  for (const group of nodeGroups) {
    const members = group.flatMap((node) => menu.items[node]!).sort((x, y) => x - y);
    if (members.length === 1) {
      singletons.push(members[0]!);
      continue;
    }
    let canonical = members[0]!;
    for (const m of members) if ([...originals[m]!].length < [...originals[canonical]!].length) canonical = m;
    const { pairwise, truncated } = pairwiseScores(members, canonical, menu, vectors, cap, options.precision.gates.knowledgeSame);
    clusters.push({ members, canonical, pairwise, pairwiseTruncated: truncated });
  }
  clusters.sort((x, y) => x.members[0]! - y.members[0]!);
  singletons.sort((x, y) => x - y);
  return {
    clusters,
    singletons,
    duplicateItems: clusters.reduce((s, c) => s + c.members.length - 1, 0),
    stats,
  };
}
