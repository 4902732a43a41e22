"""Writes models/train/eval/search_pairs.tsv: (query, item, label) over the held-out dishes of the knowledge base
(holdout_dishes.txt), which no training reads. The build calibrates the search cross-encoder's probability on it
(Platt scaling on the served graph's logits) and gates its int8 graph with it; train.py reports its AUC.

  - a dish asked for by one of its names, as a customer types it (lower case; some with one slip), against another of
    its names as a menu writes it (label 1), against the held-out dishes whose names share the most words with it and
    one random dish (label 0);
  - a concept phrasing of models/train/concepts.py (tags, courses, cuisines, proteins, diets) against held-out dishes
    its labels select (1) and ones they do not (0).

    python3 models/train/make_search_eval.py      (plain Python 3, no packages)
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from concepts import build_concepts  # noqa: E402
from menu_data import (EVAL_DIR, lexical_neighbours, load_dishes, load_noise_lexicon, render_noisy,  # noqa: E402
                       split_dishes, typo)

SEED = 20261129


def clean_cell(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def main() -> None:
    rng = random.Random(SEED)
    dishes = load_dishes()
    _, held = split_dishes(dishes)
    lex = load_noise_lexicon()
    neighbours = lexical_neighbours(held, held, k=2)
    by_id = {d.id: d for d in held}
    rows: list[tuple[str, str, int, str]] = []
    for d in held:
        forms = d.forms
        query = rng.choice(forms)
        if query.isascii():
            query = query.lower()
            if rng.random() < 0.3:
                words = query.split()
                i = rng.randrange(len(words))
                words[i] = typo(words[i], rng)
                query = " ".join(words)
        others = [f for f in forms if f != query] or forms
        rows.append((query, render_noisy(rng.choice(others), lex, rng, 0.5), 1, "dish"))
        for nid in neighbours.get(d.id, []):
            rows.append((query, rng.choice(by_id[nid].forms), 0, "dish_neighbour"))
        other = rng.choice(held)
        if other.id != d.id:
            rows.append((query, rng.choice(other.forms), 0, "dish_random"))
    for concept in build_concepts():
        if concept.key.startswith("combo:"):
            continue
        members = [d for d in held if concept.matches(d)]
        outside = [d for d in held if not concept.matches(d)]
        if len(members) < 2:
            continue
        phrase = rng.choice(concept.phrasings)
        for d in rng.sample(members, min(3, len(members))):
            rows.append((phrase, rng.choice(d.forms), 1, "concept"))
        for d in rng.sample(outside, 3):
            rows.append((phrase, rng.choice(d.forms), 0, "concept"))
    out = EVAL_DIR / "search_pairs.tsv"
    with open(out, "w", encoding="utf8") as f:
        f.write("query\titem\tlabel\tsource\n")
        for q, item, label, source in rows:
            f.write(f"{clean_cell(q)}\t{clean_cell(item)}\t{label}\t{source}\n")
    print(f"wrote {out.relative_to(EVAL_DIR.parent.parent.parent)}: {len(rows)} pairs, {sum(r[2] for r in rows)} answers")


if __name__ == "__main__":
    main()
