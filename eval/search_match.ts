import { matchRoute, type MatchResult } from '../src/routes/match.js';
import { searchRoute } from '../src/routes/search.js';
import type { RouteContext } from '../src/routes/route.js';
import { realMenuItems, sharedAvailable } from './data.js';
import type { EvalSets, MatchRow, SearchQuery } from './sets.js';
import { conflicts } from '../src/core/items.js';
import { parseMenuText } from '../src/core/menu-text.js';
import type { EvalKit } from './extra.js';
import { typoCopies } from './typos.js';

export function ctxOf(kit: EvalKit): RouteContext {
  return { services: kit.services, isOperator: true, balance: async () => ({ customer: 'eval', credits_remaining: 0, unlimited: true }) };
}

/** `--errors` lists the mistakes of a development run (`--dev`); the held-out set is never read in such a run. */
const SHOW_ERRORS = process.argv.includes('--errors');
// Dev queries scoring below this are listed with --errors; MENU_EVAL_ERRORS_BELOW=1.01 lists every one (to diff two runs).
const DEV_ERRORS_BELOW = Number(process.env.MENU_EVAL_ERRORS_BELOW ?? 0.7);

/**
 * /match on labelled pairs: accuracy, precision, recall, F1 and conflict-flag accuracy, pooled over the side's sets
 * (`match_accuracy<label>`), and in a development run each set on its own line too.
 */
export async function evalMatch(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  await kit.section(`match_accuracy${label}`, async () => {
    const rows = sets.match.flatMap((m) => m.rows);
    if (rows.length === 0) throw new Error('no labelled match pairs');
    await scoreMatchPairs(kit, rows, label, sets.side === 'dev' && SHOW_ERRORS);
  });
  if (!kit.perSet || sets.match.length < 2) return;
  for (const set of sets.match) {
    await kit.section(`match_accuracy${label}_${set.name}`, async () => {
      await scoreMatchPairs(kit, set.rows, `${label}_${set.name}`, false);
    });
  }
}

/** One answer of /match per labelled pair, in order (chunks of the route's 100-pair limit). */
export async function matchAnswers(kit: EvalKit, rows: readonly MatchRow[]): Promise<MatchResult[]> {
  const ctx = ctxOf(kit);
  const results: MatchResult[] = [];
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100);
    const req = matchRoute.parse({ pairs: chunk.map((r) => ({ text_a: r.text_a, text_b: r.text_b })) });
    results.push(...(await matchRoute.handle(req, ctx)).results);
  }
  return results;
}

async function scoreMatchPairs(kit: EvalKit, rows: readonly MatchRow[], label: string, showErrors: boolean): Promise<void> {
  const results = await matchAnswers(kit, rows);
  let tp = 0, fp = 0, fn = 0, tn = 0, dietOk = 0, protOk = 0, missedDiet = 0;
  rows.forEach((r, i) => {
    const gold = r.same;
    const got = results[i]!.match;
    if (gold && got) tp++;
    else if (got) fp++;
    else if (gold) fn++;
    else tn++;
    if (showErrors && (gold !== got || r.dietary_conflict !== results[i]!.dietary_conflict)) {
      const res = results[i]!;
      console.log(`  dev error [${r.kind}] gold ${gold ? 'same' : 'diff'}${r.dietary_conflict ? ' diet' : ''} got ${got ? 'same' : 'diff'}${res.dietary_conflict ? ' diet' : ''} cos ${res.cosine?.toFixed(3)} rr ${res.reranker_score?.toFixed(3) ?? 'null'}: ${r.text_a} | ${r.text_b}`);
    }
    if (r.dietary_conflict === results[i]!.dietary_conflict) dietOk++;
    else if (r.dietary_conflict) missedDiet++;
    if (r.protein_conflict === results[i]!.protein_conflict) protOk++;
  });
  const p = tp / (tp + fp), rc = tp / (tp + fn);
  kit.metric(`match_accuracy${label}`, (tp + tn) / rows.length, `${rows.length} labelled pairs; precision ${p.toFixed(3)} recall ${rc.toFixed(3)} F1 ${((2 * p * rc) / (p + rc)).toFixed(3)}`);
  kit.metric(`match_dietary_conflict_accuracy${label}`, dietOk / rows.length, `missed dietary conflicts: ${missedDiet}`);
  kit.metric(`match_protein_conflict_accuracy${label}`, protOk / rows.length);
}

/**
 * Dietary-conflict recall on real pairs: items of one restaurant (../shared/data) whose source veg flags differ and
 * whose names share at least half their words ("Opium Cake" / "Eggless Opium Cake", "Veg Momos" / "Chicken Momos").
 * The flags are the restaurants' own; the pairs were used while developing the conflict rules, so this is a
 * development measure beside the held-out match_dietary_conflict_accuracy.
 */
export async function evalMinedDietPairs(kit: EvalKit): Promise<void> {
  await kit.section('match_dietary_conflict_recall_real_pairs', async () => {
    if (!sharedAvailable()) throw new Error('../shared/data missing');
    const byRestaurant = new Map<string, { name: string; veg: boolean }[]>();
    for (const r of realMenuItems()) {
      if (!r.diet) continue;
      const list = byRestaurant.get(r.restaurant) ?? [];
      list.push({ name: r.name, veg: r.diet === 'veg' });
      byRestaurant.set(r.restaurant, list);
    }
    const words = (t: string): Set<string> => new Set(t.toLowerCase().split(/[^a-z]+/).filter((w) => w.length > 1));
    let pairs = 0, flagged = 0, samePairs = 0, falseAlarms = 0;
    const profileOf = (name: string) => parseMenuText(kit.services.knowledge, name).profile;
    for (const items of byRestaurant.values()) {
      const unique = [...new Map(items.map((i) => [i.name.toLowerCase(), i])).values()];
      for (let i = 0; i < unique.length; i++) {
        for (let j = i + 1; j < unique.length; j++) {
          const a = unique[i]!, b = unique[j]!;
          const wa = words(a.name), wb = words(b.name);
          const shared = [...wa].filter((w) => wb.has(w)).length;
          if (shared / new Set([...wa, ...wb]).size < 0.5) continue;
          const pa = profileOf(a.name), pb = profileOf(b.name);
          const conflict = conflicts(kit.services.knowledge, pa, pb).dietary_conflict;
          if (a.veg === b.veg) {
            samePairs++;
            if (conflict) falseAlarms++;
            continue;
          }
          pairs++;
          if (conflict) flagged++;
          else if (SHOW_ERRORS) console.log(`  missed real diet pair: ${a.name} (${a.veg ? 'veg' : 'non-veg'}; read ${pa.diet}) | ${b.name} (${b.veg ? 'veg' : 'non-veg'}; read ${pb.diet})`);
        }
      }
    }
    kit.metric('match_dietary_conflict_recall_real_pairs', flagged / Math.max(1, pairs), `${flagged}/${pairs} same-restaurant look-alike pairs with different source veg flags; development data`);
    kit.metric('match_dietary_conflict_false_alarms_real_pairs', falseAlarms / Math.max(1, samePairs), `${falseAlarms}/${samePairs} look-alike pairs with the same source flag flagged as a conflict; development data`);
  });
}

type Query = SearchQuery;

function dcg(grades: number[]): number {
  return grades.reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
}

type Menus = Readonly<Record<string, readonly string[]>>;

/**
 * /search over labelled menus: nDCG@10, MRR, no-match correctness, pooled over the side's sets, with the misspelled
 * copies and the raw-vector ranking on their own lines; in a development run each set gets its own nDCG line too.
 */
export async function evalSearch(kit: EvalKit, sets: EvalSets, label: string): Promise<void> {
  const showErrors = sets.side === 'dev' && SHOW_ERRORS;
  await kit.section(`search_ndcg_at_10${label}`, async () => {
    if (sets.search.length === 0) throw new Error('no labelled search sets');
    const menus: Record<string, readonly string[]> = {};
    const queries: Query[] = [];
    for (const set of sets.search) {
      // Menu ids are unique across sets (a set's menus are its own restaurants).
      Object.assign(menus, set.menus);
      queries.push(...set.queries);
    }
    const spelledRight = await scoreSearch(kit, menus, queries, label, showErrors);
    await scoreTypos(kit, menus, queries, spelledRight, label);
    await scoreRawVectorSearch(kit, menus, queries, label);
  });
  if (!kit.perSet || sets.search.length < 2) return;
  for (const set of sets.search) {
    await kit.section(`search_ndcg_at_10${label}_${set.name}`, async () => {
      await scoreSearch(kit, set.menus, set.queries, `${label}_${set.name}`, false, true);
    });
  }
}

/**
 * What a customer who stores our vectors in their own vector database gets: each menu ranked by the raw cosine of the
 * /embed vectors (384-d, the served encoder, cleaning included) of the query and the items, no rules, no gates.
 */
async function scoreRawVectorSearch(kit: EvalKit, menus: Menus, queries: readonly Query[], label: string): Promise<void> {
  const answerable = queries.filter((q) => menus[q.menu] && Object.keys(q.relevant).length > 0);
  let total = 0;
  for (const q of answerable) {
    const corpus = menus[q.menu]!;
    const { vectors } = await kit.services.embedTexts([q.query, ...corpus], 384);
    const scored = corpus.map((text, i) => ({ text, score: kit.dot(vectors[0]!, vectors[i + 1]!) }));
    scored.sort((a, b) => b.score - a.score);
    const gains = scored.slice(0, 10).map((r) => q.relevant[r.text] ?? 0);
    total += dcg(gains) / dcg(Object.values(q.relevant).sort((a, b) => b - a).slice(0, 10));
  }
  kit.metric(`search_ndcg_at_10_raw_vector${label}`, total / Math.max(1, answerable.length), `${answerable.length} answerable queries ranked by the raw cosine of /embed vectors (384-d), no rules`);
}

/** nDCG@10 of one query text over a menu, against a query's grades. */
async function queryNdcg(ctx: RouteContext, corpus: readonly string[], q: Query, text: string): Promise<number> {
  const res = await searchRoute.handle(searchRoute.parse({ query: text, corpus, top_k: 10 }), ctx);
  const gains = res.results.map((r) => q.relevant[r.text] ?? 0);
  return dcg(gains) / dcg(Object.values(q.relevant).sort((a, b) => b - a).slice(0, 10));
}

/**
 * The same graded queries with a customer's typo (eval/typos.ts), beside the same queries spelled right (their nDCG
 * from scoreSearch): what a slip of the keyboard costs. Its own line, so it is never mixed into the headline nDCG.
 */
async function scoreTypos(kit: EvalKit, menus: Menus, queries: readonly Query[], spelledRight: ReadonlyMap<Query, number>, label: string): Promise<void> {
  const ctx = ctxOf(kit);
  const copies = typoCopies(queries.filter((q) => menus[q.menu]));
  let typed = 0, spelled = 0;
  for (const c of copies) {
    typed += await queryNdcg(ctx, menus[c.query.menu]!, c.query, c.typed);
    spelled += spelledRight.get(c.query)!;
  }
  const n = Math.max(1, copies.length);
  kit.metric(`search_ndcg_at_10_typo${label}`, typed / n, `${copies.length} misspelled copies of exact, synonym, category and Hinglish queries; spelled right ${(spelled / n).toFixed(4)}`);
}

/** Scores the queries and returns each answerable query's nDCG@10. */
async function scoreSearch(kit: EvalKit, menus: Menus, queries: readonly Query[], label: string, showErrors: boolean, headlineOnly = false): Promise<Map<Query, number>> {
  const ctx = ctxOf(kit);
  const perKind = new Map<string, { ndcg: number[]; rr: number[] }>();
  let noMatchOk = 0, noMatchTotal = 0, answeredWhenShould = 0, shouldAnswer = 0;
  // nDCG@10 never falls when the gates let more through, so the share of returned results the graders marked
  // relevant is kept beside it: the gates trade one for the other.
  let returnedGraded = 0, returned = 0;
  const allNdcg: number[] = [];
  const byQuery = new Map<Query, number>();
  const allRr: number[] = [];
  for (const q of queries) {
    const corpus = menus[q.menu];
    if (!corpus) continue;
    const req = searchRoute.parse({ query: q.query, corpus, top_k: 10 });
    const res = await searchRoute.handle(req, ctx);
    const texts = res.results.map((r) => r.text);
    const relevantCount = Object.keys(q.relevant).length;
    if (relevantCount === 0) {
      noMatchTotal++;
      if (res.results.filter((r) => !r.is_fallback).length === 0) noMatchOk++;
      else if (showErrors) console.log(`  dev no-match answered "${q.query}" (${q.menu}): ${res.results.filter((r) => !r.is_fallback).map((r) => `${r.text} ${r.reranker_score}`).join(' · ')}`);
      continue;
    }
    shouldAnswer++;
    if (texts.length > 0) answeredWhenShould++;
    const gains = texts.map((t) => q.relevant[t] ?? 0);
    for (const r of res.results) if (!r.is_fallback) { returned++; if ((q.relevant[r.text] ?? 0) > 0) returnedGraded++; }
    const ideal = Object.values(q.relevant).sort((a, b) => b - a).slice(0, 10);
    const ndcg = dcg(gains) / dcg(ideal);
    const firstHit = gains.findIndex((g) => g > 0);
    const rr = firstHit < 0 ? 0 : 1 / (firstHit + 1);
    allNdcg.push(ndcg);
    byQuery.set(q, ndcg);
    allRr.push(rr);
    if (showErrors && ndcg < DEV_ERRORS_BELOW) {
      const missed = Object.entries(q.relevant).filter(([t]) => !texts.includes(t)).map(([t, g]) => `${t}(${g})`);
      console.log(`  dev search [${q.kind}] ndcg ${ndcg.toFixed(2)} "${q.query}" (${q.menu}) got: ${res.results.map((r) => `${r.text}${q.relevant[r.text] ? `(${q.relevant[r.text]})` : ''}${r.is_fallback ? '*' : ''}`).join(' · ')} || missed: ${missed.join(' · ')}`);
    }
    const k = perKind.get(q.kind) ?? { ndcg: [], rr: [] };
    k.ndcg.push(ndcg);
    k.rr.push(rr);
    perKind.set(q.kind, k);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  kit.metric(`search_ndcg_at_10${label}`, mean(allNdcg), `${allNdcg.length} graded queries over ${Object.keys(menus).length} real menus`);
  if (headlineOnly) return byQuery;
  kit.metric(`search_mrr${label}`, mean(allRr));
  kit.metric(`search_result_precision${label}`, returnedGraded / Math.max(1, returned), `${returnedGraded}/${returned} results (top 10, fallbacks aside) of answerable queries graded relevant`);
  kit.metric(`search_no_match_correct${label}`, noMatchOk / Math.max(1, noMatchTotal), `${noMatchOk}/${noMatchTotal} no-match queries got no semantic results; ${answeredWhenShould}/${shouldAnswer} answerable queries got results`);
  for (const [kind, v] of [...perKind].sort()) kit.metric(`search_ndcg_at_10_${kind}${label}`, mean(v.ndcg), `${v.ndcg.length} queries; MRR ${mean(v.rr).toFixed(3)}`);
  return byQuery;
}
