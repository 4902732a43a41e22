import type { Knowledge } from './knowledge/index.js';
import { dishWords } from './dish-words.js';
import { wordDifference } from './defining-words.js';
import { conflicts } from './items.js';
import type { MenuText } from './menu-text.js';
import { judgePairs, SAME_DISH_PROBABILITY, type PairScorer } from './match.js';
import { allPairsAboveAsync, cosineTopKAsync, unionFind } from '../native/index.js';
import { dot } from './inference/encoder.js';

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

export interface DedupOptions {
  readonly cosineThreshold: number;
  /** The cross-encoder when one is loaded (services.matchScorer()); null → knowledge-base precision stage. */
  readonly scorer: PairScorer | null;
  readonly maxPairwiseScores?: number;
}

export interface PairwiseScore {
  /** Item indices (into the submitted list), a before b in submission order. */
  readonly a: number;
  readonly b: number;
  /** Cosine of the cleaned texts' 384-d embeddings, raised to the precision stage's 0.97 for knowledge-base synonyms. */
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
function nodeKey(text: MenuText): string {
  return text.key !== '' ? text.key : `\u0000${text.original.trim().toLowerCase()}`;
}


/** One node per distinct cleaned name. */
interface Nodes {
  readonly count: number;
  /** node → its items (submission order). */
  readonly items: readonly number[][];
  /** item → node. */
  readonly nodeOf: Int32Array;
  /** The menu text of each node (its first item's). */
  readonly text: readonly MenuText[];
  readonly vector: readonly Float32Array[];
  /** dishWords of each node's text. */
  readonly words: readonly (readonly string[])[];
  /** The knowledge-base dish each node's text exactly names, or null. */
  readonly exactDish: readonly (number | null)[];
}

function buildNodes(texts: readonly MenuText[], vectors: readonly Float32Array[]): Nodes {
  const byKey = new Map<string, number>();
  const items: number[][] = [];
  const text: MenuText[] = [];
  const vector: Float32Array[] = [];
  const nodeOf = new Int32Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    const key = nodeKey(texts[i]!);
    let node = byKey.get(key);
    if (node === undefined) {
      node = items.length;
      byKey.set(key, node);
      items.push([]);
      text.push(texts[i]!);
      vector.push(vectors[i]!);
    }
    items[node]!.push(i);
    nodeOf[i] = node;
  }
  return { count: items.length, items, nodeOf, text, vector, words: text.map((t) => t.dishWords), exactDish: text.map((t) => t.exactDishId) };
}

/** Candidate edges (i < j) as parallel arrays: cosine all-pairs plus knowledge-base synonyms. */
async function candidateEdges(nodes: Nodes, threshold: number): Promise<{ a: number[]; b: number[]; cosine: number[] }> {
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
  if (n >= 2) {
    const dim = nodes.vector[0]!.length;
    const matrix = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) matrix.set(nodes.vector[i]!, i * dim);
    const pairs = await allPairsAboveAsync(matrix, dim, threshold);
    if (pairs.a.length <= n * MAX_CANDIDATES_PER_ITEM) {
      for (let k = 0; k < pairs.a.length; k++) add(pairs.a[k]!, pairs.b[k]!, pairs.score[k]!);
    } else {
      // A very low threshold: each node's nearest neighbours above it instead of every pair (see the constant).
      const k = Math.min(n, MAX_CANDIDATES_PER_ITEM + 1);
      const top = await cosineTopKAsync(matrix, matrix, dim, k);
      for (let i = 0; i < n; i++) {
        for (let r = 0; r < k; r++) {
          const j = top.indices[i * k + r]!;
          const c = top.scores[i * k + r]!;
          if (j >= 0 && c >= threshold) add(i, j, c);
        }
      }
    }
  }
  // Synonyms: nodes that are, exactly, names of one knowledge-base dish are candidates whatever their cosine.
  const byDish = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const id = nodes.exactDish[i]!;
    if (id === null) continue;
    const list = byDish.get(id);
    if (list) list.push(i);
    else byDish.set(id, [i]);
  }
  for (const group of byDish.values()) {
    for (let x = 0; x < group.length; x++) {
      for (let y = x + 1; y < group.length; y++) {
        if (group.length > MAX_SYNONYM_CLIQUE && x > 0) break;
        add(group[x]!, group[y]!, dot(nodes.vector[group[x]!]!, nodes.vector[group[y]!]!));
      }
    }
  }
  return { a, b, cosine };
}

/**
 * The dedup decision for node pairs, cheapest test first:
 *   - the cosine must reach the threshold unless the knowledge base lists both names, exactly, for one dish (a fuzzy
 *     resolution is not enough: "Mayones Cheese Sandwich" is not simply a Cheese Sandwich on a menu that has both);
 *   - the dish-defining word guard must let the pair through (see definingWordDifference);
 *   - the shared precision stage (judgePairs, as in /match: diet and protein conflicts, knowledge-base identity,
 *     calibrated cosine or a cross-encoder) must say "match".
 */
async function judgeNodePairs(
  k: Knowledge,
  nodes: Nodes,
  pairs: readonly (readonly [number, number])[],
  cosines: readonly number[],
  options: DedupOptions,
): Promise<boolean[]> {
  const accepted = pairs.map(([i, j], e) => {
    const synonyms = nodesAreSynonyms(nodes, i, j);
    if (!synonyms && cosines[e]! < options.cosineThreshold) return false;
    return wordDifference(k, nodes.words[i]!, nodes.words[j]!, synonyms) === null;
  });
  const judged = accepted.flatMap((ok, e) => (ok ? [e] : []));
  if (judged.length === 0) return accepted;
  const verdicts = await judgePairs(
    k,
    judged.map((e) => [nodes.text[pairs[e]![0]]!, nodes.text[pairs[e]![1]]!] as const),
    judged.map((e) => cosines[e]!),
    options.cosineThreshold,
    options.scorer,
  );
  judged.forEach((e, v) => (accepted[e] = verdicts[v]!.match));
  return accepted;
}

/** Both names are, exactly, a name or alias of the same knowledge-base dish (Devanagari transliterated). */
export function knownSynonyms(a: MenuText, b: MenuText): boolean {
  return a.exactDishId !== null && a.exactDishId === b.exactDishId;
}

function nodesAreSynonyms(nodes: Nodes, i: number, j: number): boolean {
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
function compatible(k: Knowledge, nodes: Nodes, x: number, y: number): boolean {
  if (wordDifference(k, nodes.words[x]!, nodes.words[y]!, nodesAreSynonyms(nodes, x, y)) !== null) return false;
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
  nodes: Nodes,
  adjacency: ReadonlyMap<number, ReadonlyMap<number, number>>,
  options: DedupOptions,
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
    const verdicts = await judgeNodePairs(
      k,
      nodes,
      unlinked.map((x) => [Math.min(x, core), Math.max(x, core)] as const),
      unlinked.map((x) => dot(nodes.vector[x]!, nodes.vector[core]!)),
      options,
    );
    const matchesCore = new Set(group.filter((x) => x !== core && coreEdges?.has(x)));
    unlinked.forEach((x, e) => verdicts[e] && matchesCore.add(x));
    const candidates = [...matchesCore]
      .map((x) => ({ x, cosine: dot(nodes.vector[x]!, nodes.vector[core]!) }))
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
  nodes: Nodes,
  vectors: readonly Float32Array[],
  cap: number,
): { pairwise: PairwiseScore[]; truncated: boolean } {
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
    const na = nodes.nodeOf[a]!;
    const nb = nodes.nodeOf[b]!;
    let score = na === nb ? 1 : Math.min(1, Math.max(0, dot(vectors[a]!, vectors[b]!)));
    if (na !== nb && nodesAreSynonyms(nodes, na, nb)) {
      score = Math.max(score, SAME_DISH_PROBABILITY);
    }
    return { a, b, score: Math.round(score * 1e4) / 1e4 };
  });
  return { pairwise, truncated: total > pairwise.length };
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
  const nodes = buildNodes(texts, vectors);
  const edges = await candidateEdges(nodes, options.cosineThreshold);
  const accepted = await judgeNodePairs(k, nodes, edges.a.map((a, e) => [a, edges.b[e]!] as const), edges.cosine, options);

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

  const nodeGroups: number[][] = [];
  let chainSplits = 0;
  for (const comp of components.values()) {
    const { groups, splits } = await splitChains(k, comp, nodes, adjacency, options);
    nodeGroups.push(...groups);
    chainSplits += splits;
  }

  const cap = options.maxPairwiseScores ?? MAX_PAIRWISE_SCORES;
  const clusters: DuplicateGroup[] = [];
  const singletons: number[] = [];
  for (const group of nodeGroups) {
    const members = group.flatMap((node) => nodes.items[node]!).sort((x, y) => x - y);
    if (members.length === 1) {
      singletons.push(members[0]!);
      continue;
    }
    let canonical = members[0]!;
    for (const m of members) if ([...originals[m]!].length < [...originals[canonical]!].length) canonical = m;
    const { pairwise, truncated } = pairwiseScores(members, canonical, nodes, vectors, cap);
    clusters.push({ members, canonical, pairwise, pairwiseTruncated: truncated });
  }
  clusters.sort((x, y) => x.members[0]! - y.members[0]!);
  singletons.sort((x, y) => x - y);
  return {
    clusters,
    singletons,
    duplicateItems: clusters.reduce((s, c) => s + c.members.length - 1, 0),
    stats: { nodes: nodes.count, candidates: edges.a.length, accepted: ea.length, chainSplits },
  };
}
