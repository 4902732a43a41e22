"""The knowledge base as training material: dishes, hard negatives, noise lexicons, the held-out split, and the
noisy renderings a menu gives a dish name.  Pure Python (no torch, no numpy) so the eval-set writer and the
trainers share one reading of knowledge/.

The held-out split is by whole dish and by a keyed hash of the dish's canonical name, so it is seeded and stays
stable when other dishes are added to or removed from the knowledge base.
"""
from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

TRAIN_DIR = Path(__file__).resolve().parent
ROOT = TRAIN_DIR.parent.parent
KNOWLEDGE = ROOT / "knowledge"
HOLDOUT_FILE = TRAIN_DIR / "holdout_dishes.txt"
EVAL_DIR = TRAIN_DIR / "eval"

HOLDOUT_SEED = "menu-holdout-v1"
HOLDOUT_PERCENT = 10


@dataclass
class Dish:
    id: int
    name: str
    cuisine: str
    course: str
    diet: str
    protein: str | None
    tags: frozenset[str]
    aliases: list[str] = field(default_factory=list)

    @property
    def forms(self) -> list[str]:
        """Every way the knowledge base writes this dish: the canonical name first."""
        return [self.name] + self.aliases


def name_key(text: str) -> str:
    """Same folding as src/core/knowledge/dishes.ts nameKey: lower case, accents off, punctuation to spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not ("\u0300" <= c <= "\u036f"))
    text = text.lower().replace("&", " and ")
    return re.sub(r"[^\w\u0900-\u097f]+|_", " ", text).strip()


def _data_lines(path: Path) -> list[str]:
    return [l.rstrip("\n") for l in path.read_text(encoding="utf8").splitlines() if l.strip() and not l.startswith("#")]


def load_dishes(knowledge: Path = KNOWLEDGE) -> list[Dish]:
    dishes: list[Dish] = []
    for path in sorted((knowledge / "dishes").glob("*.tsv")):
        for line in _data_lines(path):
            cells = line.split("\t")
            if len(cells) < 7 or cells[0] == "name":
                continue
            name, cuisine, course, diet, protein, tags, aliases = (c.strip() for c in cells[:7])
            dishes.append(Dish(
                id=len(dishes), name=name, cuisine=cuisine, course=course, diet=diet,
                protein=None if protein in ("", "-") else protein,
                tags=frozenset(t for t in tags.split(",") if t and t != "-"),
                aliases=[a.strip() for a in aliases.split("|") if a.strip() and a.strip() != "-"],
            ))
    return dishes


def dish_index(dishes: list[Dish]) -> dict[str, set[int]]:
    """name_key(name or alias) -> dish ids."""
    index: dict[str, set[int]] = {}
    for d in dishes:
        for form in d.forms:
            index.setdefault(name_key(form), set()).add(d.id)
    return index


def load_hard_negatives(knowledge: Path = KNOWLEDGE) -> list[tuple[str, str, str]]:
    path = knowledge / "hard_negatives.tsv"
    if not path.exists():
        return []
    rows = []
    for line in _data_lines(path):
        cells = line.split("\t")
        if len(cells) >= 3 and cells[0] != "text_a":
            rows.append((cells[0].strip(), cells[1].strip(), cells[2].strip()))
    return rows


def is_held_out(dish: Dish) -> bool:
    digest = hashlib.sha256(f"{HOLDOUT_SEED}:{name_key(dish.name)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < HOLDOUT_PERCENT


def split_dishes(dishes: list[Dish]) -> tuple[list[Dish], list[Dish]]:
    train = [d for d in dishes if not is_held_out(d)]
    held = [d for d in dishes if is_held_out(d)]
    return train, held


def knowledge_hash(knowledge: Path = KNOWLEDGE) -> str:
    """sha256 over every knowledge file the training reads: recorded next to each delta."""
    h = hashlib.sha256()
    files = sorted((knowledge / "dishes").glob("*.tsv")) + [knowledge / "hard_negatives.tsv"] + sorted((knowledge / "lexicon").glob("*"))
    for f in files:
        if f.exists():
            h.update(str(f.relative_to(knowledge)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------------------------
# Noisy renderings: what a real menu does to a clean dish name.

@dataclass
class NoiseLexicon:
    promo: list[str]
    sizes: list[str]
    misspell_by_right: dict[str, list[str]]


def load_noise_lexicon(knowledge: Path = KNOWLEDGE) -> NoiseLexicon:
    lex = knowledge / "lexicon"
    promo = _data_lines(lex / "promo.txt") if (lex / "promo.txt").exists() else []
    sizes = _data_lines(lex / "sizes.txt") if (lex / "sizes.txt").exists() else []
    misspell: dict[str, list[str]] = {}
    if (lex / "misspellings.tsv").exists():
        for line in _data_lines(lex / "misspellings.tsv"):
            cells = line.split("\t")
            if len(cells) >= 2 and cells[0] != "wrong":
                misspell.setdefault(cells[1].strip().lower(), []).append(cells[0].strip().lower())
    return NoiseLexicon(promo=promo, sizes=sizes, misspell_by_right=misspell)


_PRICE_FORMS = ["₹{p}", "Rs. {p}", "Rs {p}/-", "INR {p}", "{p}", "₹ {p}.00", "${d}.99", "@ {p}"]
_PORTION_FORMS = ["[Serves {n}]", "(Serves {n})", "({n} Pcs)", "{n} pcs", "(500 ml)", "250 ml", "1.25 L", "(250 g)",
                  "[{n} Pieces]", "(Half)", "(Full)", "- Half", "Full Plate", "(Regular)", "(Large)", "Medium"]
_DECORATIONS = ["★ {t}", "{t} *", "{t} 🌶", "{t} 🔥", "🌱 {t}", "{t} (V)", "*{t}*", "{t}.", "- {t}", "{t} !!"]
_VOWEL_SWAPS = [("ee", "i"), ("i", "ee"), ("aa", "a"), ("a", "aa"), ("oo", "u"), ("u", "oo"), ("ph", "f"),
                ("kh", "k"), ("sh", "s"), ("th", "t"), ("y", "i"), ("w", "v"), ("v", "w"), ("ck", "k"), ("c", "k")]


def typo(word: str, rng: random.Random) -> str:
    """One keyboard or transliteration slip in a word of four or more letters."""
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return word
    kind = rng.random()
    i = rng.randrange(1, len(word) - 1)
    if kind < 0.25:
        return word[:i] + word[i + 1:]  # dropped letter
    if kind < 0.45:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]  # swapped neighbours
    if kind < 0.6:
        return word[:i] + word[i] + word[i:]  # doubled letter
    lower = word.lower()
    options = [(a, b) for a, b in _VOWEL_SWAPS if a in lower]
    if not options:
        return word[:i] + word[i + 1:]
    a, b = rng.choice(options)
    at = lower.find(a)
    return word[:at] + b + word[at + len(a):]


def misspell(text: str, lex: NoiseLexicon, rng: random.Random) -> str:
    words = text.split()
    idx = [i for i, w in enumerate(words) if len(w) >= 4 and w.isascii()]
    if not idx:
        return text
    i = rng.choice(idx)
    known = lex.misspell_by_right.get(words[i].lower())
    if known and rng.random() < 0.5:
        words[i] = rng.choice(known)
    else:
        words[i] = typo(words[i], rng)
    return " ".join(words)


def recase(text: str, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return text.lower()
    if r < 0.55:
        return text.upper()
    if r < 0.75:
        return text.title()
    return text


def render_noisy(text: str, lex: NoiseLexicon, rng: random.Random, strength: float = 1.0) -> str:
    """A menu-style rendering of a dish name: each kind of noise is applied independently, so some outputs are clean."""
    out = text
    if rng.random() < 0.35 * strength:
        out = misspell(out, lex, rng)
    if rng.random() < 0.15 * strength:
        out = misspell(out, lex, rng)
    out = recase(out, rng)
    if rng.random() < 0.25 * strength and lex.sizes:
        size = rng.choice(lex.sizes)
        out = f"{out} ({size.title()})" if rng.random() < 0.5 else f"{size.title()} {out}" if rng.random() < 0.3 else f"{out} {size}"
    if rng.random() < 0.25 * strength:
        out = f"{out} {rng.choice(_PORTION_FORMS).format(n=rng.randint(1, 8))}"
    if rng.random() < 0.3 * strength:
        p = rng.choice([49, 89, 99, 120, 149, 180, 199, 249, 299, 349, 399, 449, 520, 649])
        out = f"{out} {rng.choice(_PRICE_FORMS).format(p=p, d=rng.randint(3, 19))}"
    if rng.random() < 0.25 * strength and lex.promo:
        promo = rng.choice(lex.promo).title()
        out = f"{out} {promo}" if rng.random() < 0.6 else f"[{promo}] {out}"
    if rng.random() < 0.12 * strength:
        out = rng.choice(_DECORATIONS).format(t=out)
    return out


def word_set(text: str) -> frozenset[str]:
    return frozenset(w for w in name_key(text).split() if len(w) > 1)


def lexical_neighbours(dishes: list[Dish], candidates: list[Dish], k: int) -> dict[int, list[int]]:
    """For each dish, the k other candidate dishes whose canonical names share the most words (Jaccard).

    Model-free on purpose: the eval negatives mined this way do not favour or handicap any one encoder."""
    words = {d.id: word_set(d.name) for d in dishes + candidates}
    by_word: dict[str, set[int]] = {}
    for c in candidates:
        for w in words[c.id]:
            by_word.setdefault(w, set()).add(c.id)
    out: dict[int, list[int]] = {}
    for d in dishes:
        scored = []
        seen = set()
        for w in words[d.id]:
            for cid in by_word.get(w, ()):
                if cid == d.id or cid in seen:
                    continue
                seen.add(cid)
                a, b = words[d.id], words[cid]
                scored.append((len(a & b) / len(a | b), cid))
        scored.sort(key=lambda s: (-s[0], s[1]))
        out[d.id] = [cid for _, cid in scored[:k]]
    return out
