"""Training examples generated from the knowledge base (training dishes only; the held-out dishes and every hard
negative that names one are excluded).  Pure Python; the trainers draw batches from these generators with a seeded
random.Random, so a run is reproducible from the repository alone.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from concepts import Concept, build_concepts
from menu_data import (Dish, NoiseLexicon, dish_index, lexical_neighbours, load_dishes, load_hard_negatives,
                       load_noise_lexicon, name_key, render_noisy, split_dishes)


@dataclass
class BiExample:
    anchor: str
    positive: str
    negative: str | None
    positive_dish: int
    negative_dish: int        # -1 when there is no negative; < -1 for a text that names no knowledge-base dish
    relevant: frozenset[int]  # dishes that are right answers for the anchor (masked as in-batch negatives)


class TrainingData:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        dishes = load_dishes()
        self.all_dishes = dishes
        self.train, self.held = split_dishes(dishes)
        held_ids = {d.id for d in self.held}
        self.by_id = {d.id: d for d in dishes}
        self.lex: NoiseLexicon = load_noise_lexicon()
        index = dish_index(dishes)
        # Written hard negatives, per training dish (both directions); texts that are no dish get their own ids.
        self.hard: dict[int, list[tuple[str, int]]] = {}
        self.hard_pairs: list[tuple[str, str]] = []
        unknown: dict[str, int] = {}
        for a, b, _kind in load_hard_negatives():
            ida, idb = index.get(name_key(a), set()), index.get(name_key(b), set())
            if (ida | idb) & held_ids:
                continue
            self.hard_pairs.append((a, b))
            ka = min(ida) if len(ida) == 1 else unknown.setdefault(name_key(a), -2 - len(unknown))
            kb = min(idb) if len(idb) == 1 else unknown.setdefault(name_key(b), -2 - len(unknown))
            if ka >= 0:
                self.hard.setdefault(ka, []).append((b, kb))
            if kb >= 0:
                self.hard.setdefault(kb, []).append((a, ka))
        self.neighbours = lexical_neighbours(self.train, self.train, k=6)
        self.concepts: list[Concept] = [c for c in build_concepts()]
        self.concept_members: list[list[int]] = [[d.id for d in self.train if c.matches(d)] for c in self.concepts]
        keep = [i for i, m in enumerate(self.concept_members) if len(m) >= 3]
        self.concepts = [self.concepts[i] for i in keep]
        self.concept_members = [self.concept_members[i] for i in keep]
        self.concept_sets = [frozenset(m) for m in self.concept_members]
        # Dishes with several names teach more; weight by how many forms a dish has (capped).
        self.dish_weights = [min(len(d.forms), 5) for d in self.train]

    # -- texts -------------------------------------------------------------------------------------------------
    def noisy(self, text: str, strength: float = 1.0) -> str:
        return render_noisy(text, self.lex, self.rng, strength)

    def form(self, dish: Dish) -> str:
        return self.rng.choice(dish.forms)

    def two_forms(self, dish: Dish) -> tuple[str, str]:
        forms = dish.forms
        if len(forms) == 1:
            a = forms[0]
            for _ in range(4):
                b = self.noisy(a, 1.5)
                if name_key(b) != name_key(a):
                    return a, b
            return a, a.lower()
        a, b = self.rng.sample(forms, 2)
        return (self.noisy(a) if self.rng.random() < 0.6 else a), (self.noisy(b, 0.5) if self.rng.random() < 0.3 else b)

    def negative_for(self, dish: Dish) -> tuple[str, int]:
        r = self.rng.random()
        if r < 0.5 and dish.id in self.hard:
            text, nid = self.rng.choice(self.hard[dish.id])
            return (self.noisy(text, 0.5) if self.rng.random() < 0.3 else text), nid
        if r < 0.9 and self.neighbours.get(dish.id):
            other = self.by_id[self.rng.choice(self.neighbours[dish.id])]
        else:
            other = self.rng.choice(self.train)
        return (self.noisy(self.form(other), 0.5) if self.rng.random() < 0.3 else self.form(other)), other.id

    # -- bi-encoder ---------------------------------------------------------------------------------------------
    def bi_batch(self, size: int, query_share: float = 0.25) -> list[BiExample]:
        batch: list[BiExample] = []
        used_dishes: set[int] = set()
        used_concepts: set[int] = set()
        n_query = int(round(size * query_share))
        while len(batch) < n_query:
            ci = self.rng.randrange(len(self.concepts))
            if ci in used_concepts:
                continue
            used_concepts.add(ci)
            members = self.concept_members[ci]
            pos = self.by_id[self.rng.choice(members)]
            phrase = self.rng.choice(self.concepts[ci].phrasings)
            if self.rng.random() < 0.15:
                phrase = self.noisy(phrase, 0.4)
            # A near miss as the hard negative: same course or cuisine, but not an answer.
            neg = None
            for _ in range(8):
                cand = self.rng.choice(self.train)
                if cand.id not in self.concept_sets[ci] and (cand.course == pos.course or cand.cuisine == pos.cuisine):
                    neg = cand
                    break
            pos_text = self.noisy(self.form(pos), 0.6) if self.rng.random() < 0.4 else self.form(pos)
            batch.append(BiExample(phrase, pos_text, self.form(neg) if neg else None, pos.id, neg.id if neg else -1,
                                   self.concept_sets[ci]))
            used_dishes.add(pos.id)
        while len(batch) < size:
            dish = self.rng.choices(self.train, weights=self.dish_weights)[0]
            if dish.id in used_dishes:
                continue
            used_dishes.add(dish.id)
            a, b = self.two_forms(dish)
            if self.rng.random() < 0.5:
                a, b = b, a
            neg_text, neg_id = self.negative_for(dish)
            batch.append(BiExample(a, b, neg_text, dish.id, neg_id, frozenset([dish.id])))
        self.rng.shuffle(batch)
        return batch

    # -- cross-encoder ------------------------------------------------------------------------------------------
    def cross_batch(self, size: int, query_share: float = 0.3) -> list[tuple[str, str, float]]:
        out: list[tuple[str, str, float]] = []
        n_query = int(round(size * query_share))
        for _ in range(n_query):
            ci = self.rng.randrange(len(self.concepts))
            phrase = self.rng.choice(self.concepts[ci].phrasings)
            if self.rng.random() < 0.5:
                d = self.by_id[self.rng.choice(self.concept_members[ci])]
                out.append((phrase, self.noisy(self.form(d), 0.6), 1.0))
            else:
                d = None
                for _ in range(8):
                    cand = self.rng.choice(self.train)
                    if cand.id not in self.concept_sets[ci]:
                        d = cand
                        break
                if d is not None:
                    out.append((phrase, self.noisy(self.form(d), 0.6), 0.0))
        while len(out) < size:
            dish = self.rng.choices(self.train, weights=self.dish_weights)[0]
            r = self.rng.random()
            if r < 0.45:
                a, b = self.two_forms(dish)
                label = 1.0
            elif r < 0.65 and self.hard_pairs:
                a, b = self.rng.choice(self.hard_pairs)
                a = self.noisy(a, 0.6) if self.rng.random() < 0.5 else a
                label = 0.0
            else:
                b, _ = self.negative_for(dish)
                a = self.noisy(self.form(dish), 0.6) if self.rng.random() < 0.5 else self.form(dish)
                label = 0.0
            if self.rng.random() < 0.5:
                a, b = b, a
            out.append((a, b, label))
        self.rng.shuffle(out)
        return out

    # -- search cross-encoder -----------------------------------------------------------------------------------
    def head_word(self, dish: Dish) -> str:
        words = name_key(dish.name).split()
        return words[-1] if words else ""

    def search_kb_batch(self, size: int) -> list[tuple[str, str, float]]:
        """(query, item, relevance target) generated from the knowledge base, graded as eval/LABELLING.md grades:
        a dish asked for by any of its names (a customer's spelling: lower case, sometimes a slip) is answered by the
        dish in a menu's rendering (1.0); a dish of its family (the same head word: Chicken Tikka for "paneer tikka")
        is a partial answer (0.35); another dish is none. A concept phrasing ("something sweet", "thanda") is
        answered by the dishes the concept's labels select, not by a near miss of the same course or cuisine."""
        if not hasattr(self, "_by_head"):
            self._by_head: dict[str, list[Dish]] = {}
            for d in self.train:
                self._by_head.setdefault(self.head_word(d), []).append(d)
        out: list[tuple[str, str, float]] = []
        while len(out) < size:
            if self.rng.random() < 0.35:
                ci = self.rng.randrange(len(self.concepts))
                phrase = self.rng.choice(self.concepts[ci].phrasings)
                if self.rng.random() < 0.1:
                    phrase = self.noisy(phrase, 0.4).lower()
                if self.rng.random() < 0.5:
                    d = self.by_id[self.rng.choice(self.concept_members[ci])]
                    out.append((phrase, self.noisy(self.form(d), 0.5), 1.0))
                else:
                    for _ in range(8):
                        cand = self.rng.choice(self.train)
                        if cand.id not in self.concept_sets[ci]:
                            out.append((phrase, self.noisy(self.form(cand), 0.5), 0.0))
                            break
                continue
            dish = self.rng.choices(self.train, weights=self.dish_weights)[0]
            query = self.form(dish)
            if query.isascii():
                query = query.lower()
                if self.rng.random() < 0.25:
                    query = self.noisy(query, 0.8).lower()
            r = self.rng.random()
            if r < 0.4:
                item, target = self.noisy(self.form(dish), 0.6), 1.0
            elif r < 0.6:
                family = [d for d in self._by_head.get(self.head_word(dish), []) if d.id != dish.id]
                if not family:
                    continue
                item, target = self.noisy(self.form(self.rng.choice(family)), 0.5), 0.35
            else:
                text, _ = self.negative_for(dish)
                # A near miss of the same head word is still the dish's family: a partial answer, not none.
                same_family = name_key(text).split()[-1:] == [self.head_word(dish)]
                item, target = text, 0.35 if same_family else 0.0
            out.append((query, item, target))
        self.rng.shuffle(out)
        return out
