"""What the whole current system taught (models/train/teacher/export-teacher.mjs writes it into models/cache/teacher/),
as training examples: same-dish pairs and hard negatives of real menu names judged by /match, generated queries over
real menus graded by /search, and the graded development sets that holdback.json leaves trainable.

Every text here is cleaned the way the service cleans before it embeds (the teacher wrote them so), so the encoder is
trained on what it is served. Pure Python; batches are drawn with the caller's seeded random.Random.

Examples carry *identities* (("t", text key), ("c", same-dish cluster), ("d", knowledge-base dish)) so that the
contrastive loss never pushes away an in-batch candidate that is a right answer for another anchor: another name of the
same dish, another item the query's grades accept.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from menu_data import ROOT, name_key

TEACHER_DIR = ROOT / "models" / "cache" / "teacher"
HOLDBACK = Path(__file__).resolve().parent / "teacher" / "holdback.json"

# Search grades (3/2/1 as the development sets grade; 0 = not an answer) as a relevance target in [0, 1].
GRADE_TARGET = {3: 1.0, 2: 0.7, 1: 0.35, 0: 0.0}


@dataclass
class Example:
    anchor: str
    positive: str
    negative: str | None
    positive_ids: frozenset   # identities of the positive (what other anchors must not be pushed from)
    negative_ids: frozenset
    accepted: frozenset       # identities that are right answers for this anchor


def teacher_manifest(directory: Path = TEACHER_DIR) -> dict:
    path = directory / "manifest.json"
    if not path.exists():
        raise SystemExit(f"no teacher data in {directory}: run `node models/train/teacher/export-teacher.mjs` first")
    return json.loads(path.read_text())


def verify_teacher(directory: Path = TEACHER_DIR) -> str:
    """Checks every teacher file against the manifest's sha256 and returns the data set's digest."""
    manifest = teacher_manifest(directory)
    for name, entry in manifest["files"].items():
        got = hashlib.sha256((directory / name).read_bytes()).hexdigest()
        if got != entry["sha256"]:
            raise SystemExit(f"{directory / name}: sha256 {got}, the teacher manifest records {entry['sha256']}")
    return manifest["sha256"]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(l) for l in path.read_text(encoding="utf8").splitlines() if l.strip()]


class _Clusters:
    """Union-find over texts joined by confident same-dish verdicts."""

    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class TeacherData:
    def __init__(self, seed: int, directory: Path = TEACHER_DIR, dish_of: dict[str, int] | None = None,
                 use_dev_labels: bool = True, positive_floor: float = 0.0):
        self.rng = random.Random(seed + 7)
        self.dish_of = dish_of or {}
        pairs = read_jsonl(directory / "same_pairs.jsonl")
        self.clusters = _Clusters()
        self.positives: list[tuple[str, str]] = []
        self.negatives_of: dict[str, list[str]] = {}
        # A positive also needs the cross-encoder alone at positive_floor or more: the knowledge base's identity that
        # /match adds is often two names read loosely as one dish.
        pairs = [p for p in pairs if p["label"] == 0 or p.get("model_p") is None or p["model_p"] >= positive_floor]
        for p in pairs:
            if p["label"] == 1:
                self.positives.append((p["a"], p["b"]))
                self.clusters.union(name_key(p["a"]), name_key(p["b"]))
            else:
                self.negatives_of.setdefault(p["a"], []).append(p["b"])
                self.negatives_of.setdefault(p["b"], []).append(p["a"])
        self.negative_pairs = [(p["a"], p["b"]) for p in pairs if p["label"] == 0]
        menus = {m["menu"]: m for m in read_jsonl(directory / "search_menus.jsonl")}
        self.queries: list[dict] = []
        for q in read_jsonl(directory / "search_pairs.jsonl"):
            items = menus[q["menu"]]["cleaned"]
            grades = {g["i"]: g["grade"] for g in q["graded"]}
            self.queries.append({"query": q["cleaned_query"], "kind": q["kind"], "items": items, "grades": grades,
                                 "hard": [h["i"] for h in q["hard"]], "source": "teacher"})
        self.dev_match: list[tuple[str, str, int]] = []
        if use_dev_labels:
            for row in read_jsonl(directory / "dev_labels.jsonl"):
                if "query" in row:
                    grades = {i: g for i, g in enumerate(row["grades"]) if g > 0}
                    self.queries.append({"query": row["cleaned_query"], "kind": row["kind"], "items": row["cleaned"],
                                         "grades": grades, "hard": [], "source": "dev"})
                else:
                    self.dev_match.append((row["a"], row["b"], row["same"]))
                    if row["same"]:
                        self.positives.append((row["a"], row["b"]))
                        self.clusters.union(name_key(row["a"]), name_key(row["b"]))
                    else:
                        self.negatives_of.setdefault(row["a"], []).append(row["b"])
                        self.negatives_of.setdefault(row["b"], []).append(row["a"])
                        self.negative_pairs.append((row["a"], row["b"]))
        self.answerable = [q for q in self.queries if any(g >= 2 for g in q["grades"].values())]

    # -- identities ----------------------------------------------------------------------------------------------
    def ids(self, text: str) -> frozenset:
        key = name_key(text)
        out = {("t", key), ("c", self.clusters.find(key))}
        dish = self.dish_of.get(key)
        if dish is not None:
            out.add(("d", dish))
        return frozenset(out)

    # -- bi-encoder ----------------------------------------------------------------------------------------------
    def pair_example(self) -> Example:
        a, b = self.rng.choice(self.positives)
        if self.rng.random() < 0.5:
            a, b = b, a
        negs = self.negatives_of.get(a) or self.negatives_of.get(b) or []
        neg = self.rng.choice(negs) if negs else None
        accepted = self.ids(a) | self.ids(b)
        return Example(a, b, neg, self.ids(b), self.ids(neg) if neg else frozenset(), accepted)

    def query_example(self) -> Example:
        q = self.rng.choice(self.answerable)
        items, grades = q["items"], q["grades"]
        best = max(grades.values())
        top = [i for i, g in grades.items() if g == best]
        pos = items[self.rng.choice(top)]
        zero = [i for i in q["hard"] if grades.get(i, 0) == 0] or [i for i in range(len(items)) if grades.get(i, 0) == 0]
        neg = items[self.rng.choice(zero[:5])] if zero else None
        accepted = frozenset().union(*(self.ids(items[i]) for i, g in grades.items() if g >= 1))
        # An in-batch text the query's grades accept is not a negative, and neither is a text of the same key as the
        # negative, which only this anchor's grades say is wrong.
        return Example(q["query"], pos, neg, self.ids(pos), self.ids(neg) if neg else frozenset(), accepted)

    # -- search cross-encoder ------------------------------------------------------------------------------------
    def search_pairs(self, n: int) -> list[tuple[str, str, float]]:
        """(query, item, target) from graded queries: half answers (graded items), half non-answers (mostly the items
        of highest cosine the grades reject, some random items of the menu)."""
        out = []
        while len(out) < n:
            q = self.rng.choice(self.queries)
            items, grades = q["items"], q["grades"]
            if grades and self.rng.random() < 0.5:
                i = self.rng.choice(list(grades))
            else:
                hard = [i for i in q["hard"] if grades.get(i, 0) == 0]
                i = self.rng.choice(hard) if hard and self.rng.random() < 0.7 else self.rng.randrange(len(items))
            out.append((q["query"], items[i], GRADE_TARGET[grades.get(i, 0)]))
        return out


def holdback() -> dict:
    return json.loads(HOLDBACK.read_text())
