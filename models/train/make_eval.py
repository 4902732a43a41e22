"""Writes the held-out evaluation sets (committed; training never reads them except to exclude what they hold):

  models/train/holdout_dishes.txt      canonical names of the held-out dishes (whole dishes, keyed-hash split)
  models/train/eval/pairs.tsv          same-dish pairs over held-out dishes: text_a, text_b, label (1 same / 0 different), source
  models/train/eval/retrieval_corpus.sha256   fingerprint of the corpus: real menu item names from ../shared/data
                                           (deduplicated by name_key, sorted), rebuilt at eval time by menu_corpus()
                                           into retrieval_corpus.txt (gitignored: shared data is never committed)
  models/train/eval/retrieval_queries.tsv  qid, kind, query (eval_queries.py)
  models/train/eval/retrieval_qrels.tsv    qid, grade (1..3), items: comma-separated 0-based line numbers of
                                           retrieval_corpus.txt (items not listed are grade 0)

    python3 models/train/make_eval.py      (plain Python 3, no packages; needs ../shared/data for the corpus)
"""
from __future__ import annotations

import csv
import hashlib
import os
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from menu_data import (EVAL_DIR, HOLDOUT_FILE, ROOT, dish_index, lexical_neighbours, load_dishes,  # noqa: E402
                       load_hard_negatives, load_noise_lexicon, name_key, render_noisy, split_dishes)
from eval_queries import QUERIES  # noqa: E402
import concepts  # noqa: E402

# MENU_SHARED_DATA, as the eval reads it, for checkouts that are not beside ../shared/data.
SHARED_DATA = Path(os.environ.get("MENU_SHARED_DATA", str(ROOT.parent / "shared" / "data")))
EVAL_SEED = 20261122


def menu_corpus() -> list[str]:
    """Item names of real menus: every Swiggy menu dump and the Zomato Roorkee menus, one per name_key."""
    names: list[str] = []
    with open(SHARED_DATA / "swiggy_menu_dumps" / "swiggy_menu_items.csv", encoding="utf8") as f:
        names += [r["item_name"].strip() for r in csv.DictReader(f)]
    with open(SHARED_DATA / "zomato_roorkee_menus" / "zomato_roorkee_menu_items.csv", encoding="utf8") as f:
        names += [r["item_name"].strip() for r in csv.DictReader(f)]
    by_key: dict[str, str] = {}
    for n in sorted(names):
        k = name_key(n)
        if k and k not in by_key:
            by_key[k] = " ".join(n.split())
    return sorted(by_key.values(), key=lambda s: (name_key(s), s))


COMBO = re.compile(r"\+|\bcombo\b|\bmeal for\b|\bmeals? box\b|\bfeast\b", re.I)


def corpus_sha256(corpus: list[str]) -> str:
    return hashlib.sha256(("\n".join(corpus) + "\n").encode("utf8")).hexdigest()


def write_corpus(corpus: list[str]) -> None:
    (EVAL_DIR / "retrieval_corpus.txt").write_text("\n".join(corpus) + "\n", encoding="utf8")


def ensure_corpus() -> None:
    """Rebuilds retrieval_corpus.txt from ../shared/data when it is missing, and checks it against the committed
    fingerprint (the qrels refer to its line numbers)."""
    path = EVAL_DIR / "retrieval_corpus.txt"
    want = (EVAL_DIR / "retrieval_corpus.sha256").read_text().strip()
    if not path.exists():
        write_corpus(menu_corpus())
    got = hashlib.sha256(path.read_bytes()).hexdigest()
    if got != want:
        raise SystemExit(f"retrieval corpus fingerprint {got} != committed {want}: ../shared/data changed; rerun make_eval.py")


def grade(query, key: str, raw: str) -> int:
    """The first rule that matches; an item that bundles several dishes ("Burger + Coke", "... Combo") is at most
    grade 1: it contains the dish but is not what a search for it should put first."""
    if query.not_ and re.search(query.not_, key):
        return 0
    for g, pattern in query.rules:
        if re.search(pattern, key):
            return min(g, 1) if COMBO.search(raw) else g
    return 0


def same_dish_pairs(rng: random.Random) -> list[tuple[str, str, int, str]]:
    dishes = load_dishes()
    _, held = split_dishes(dishes)
    held_ids = {d.id for d in held}
    lex = load_noise_lexicon()
    pairs: list[tuple[str, str, int, str]] = []
    for d in held:
        forms = d.forms
        if len(forms) == 1:
            noisy = render_noisy(d.name, lex, rng)
            if name_key(noisy) != name_key(d.name):
                pairs.append((noisy, d.name, 1, "noisy_name"))
            continue
        aliases = d.aliases[:]
        rng.shuffle(aliases)
        for alias in aliases[:3]:
            a = render_noisy(d.name, lex, rng, 0.7) if rng.random() < 0.5 else d.name
            b = render_noisy(alias, lex, rng, 0.7) if rng.random() < 0.5 else alias
            pairs.append((a, b, 1, "alias"))
    index = dish_index(dishes)
    for a, b, kind in load_hard_negatives():
        ids = index.get(name_key(a), set()) | index.get(name_key(b), set())
        if ids & held_ids:
            if rng.random() < 0.4:
                a = render_noisy(a, lex, rng, 0.6)
            pairs.append((a, b, 0, f"hard_negative:{kind}"))
    neighbours = lexical_neighbours(held, dishes, k=2)
    by_id = {d.id: d for d in dishes}
    for d in held:
        for nid in neighbours[d.id]:
            other = by_id[nid]
            a = rng.choice(d.forms) if rng.random() < 0.4 else d.name
            b = rng.choice(other.forms) if rng.random() < 0.4 else other.name
            if rng.random() < 0.4:
                a = render_noisy(a, lex, rng, 0.6)
            pairs.append((a, b, 0, "lexical_neighbour"))
    seen = set()
    unique = []
    for p in pairs:
        key = (name_key(p[0]), name_key(p[1]))
        if key in seen or (key[1], key[0]) in seen or key[0] == key[1] and p[2] == 0:
            continue
        seen.add(key)
        unique.append(p)
    return unique


def main() -> None:
    rng = random.Random(EVAL_SEED)
    EVAL_DIR.mkdir(parents=True, exist_ok=True)
    dishes = load_dishes()
    _, held = split_dishes(dishes)
    HOLDOUT_FILE.write_text("# Held-out dishes: never in training pairs (keyed-hash split, see menu_data.py)\n"
                            + "\n".join(sorted(d.name for d in held)) + "\n", encoding="utf8")

    pairs = same_dish_pairs(rng)
    with open(EVAL_DIR / "pairs.tsv", "w", encoding="utf8") as f:
        f.write("text_a\ttext_b\tlabel\tsource\n")
        for a, b, label, source in pairs:
            f.write(f"{a}\t{b}\t{label}\t{source}\n")

    train_phrasings = {name_key(p) for p in concepts.all_train_phrasings()}
    clashes = [q.text for q in QUERIES if name_key(q.text) in train_phrasings]
    if clashes:
        raise SystemExit(f"eval queries also used as training phrasings: {clashes}")
    corpus = menu_corpus()
    keys = [name_key(c) for c in corpus]
    write_corpus(corpus)
    (EVAL_DIR / "retrieval_corpus.sha256").write_text(corpus_sha256(corpus) + "\n")
    with open(EVAL_DIR / "retrieval_queries.tsv", "w", encoding="utf8") as fq, \
         open(EVAL_DIR / "retrieval_qrels.tsv", "w", encoding="utf8") as fr:
        fq.write("qid\tkind\tquery\n")
        fr.write("qid\tgrade\titems\n")
        for i, q in enumerate(QUERIES):
            qid = f"q{i + 1:03d}"
            fq.write(f"{qid}\t{q.kind}\t{q.text}\n")
            grades = [grade(q, k, item) for k, item in zip(keys, corpus)]
            if max(grades) < 2:
                raise SystemExit(f"query {q.text!r} has no item of grade >= 2 in the corpus")
            for g in (3, 2, 1):
                lines = [str(i) for i, x in enumerate(grades) if x == g]
                if lines:
                    fr.write(f"{qid}\t{g}\t{','.join(lines)}\n")
    n_pos = sum(1 for p in pairs if p[2] == 1)
    print(f"holdout dishes {len(held)}; pairs {len(pairs)} ({n_pos} same, {len(pairs) - n_pos} different); "
          f"corpus {len(corpus)}; queries {len(QUERIES)}")


if __name__ == "__main__":
    main()
