"""Search concepts for training: query phrasings (English, Hinglish, Spanish, a little Devanagari) and which
knowledge-base dishes answer them, decided from the dish rows' labels (tags, course, cuisine, protein, diet).

The retrieval eval (eval_queries.py) uses other phrasings; make_eval.py refuses an eval query that is also a
training phrasing here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from menu_data import Dish


@dataclass(frozen=True)
class Concept:
    key: str
    phrasings: tuple[str, ...]
    matches: Callable[[Dish], bool]


def _tag(tag: str) -> Callable[[Dish], bool]:
    return lambda d: tag in d.tags


TAG_PHRASINGS: dict[str, tuple[str, ...]] = {
    "sweet": ("something sweet", "sweet dish", "desserts", "dessert", "meetha", "sweets", "postre", "dulce", "sweet treat", "मीठा"),
    "cold_drink": ("cold drink", "cold drinks", "chilled beverage", "something cold", "thanda", "refreshing drink", "bebida fria",
                   "summer drink", "ठंडा पेय"),
    "hot_drink": ("hot drink", "hot beverage", "something warm to drink", "garam peene ko", "bebida caliente", "tea or coffee"),
    "healthy": ("healthy food", "healthy", "healthy lunch", "diet food", "low calorie", "nutritious meal", "comida saludable",
                "sehatmand khana"),
    "light": ("light food", "light snack", "halka khana", "light dinner", "comida ligera"),
    "spicy": ("spicy food", "spicy", "teekha", "picante", "hot and spicy", "mirchi wala", "तीखा"),
    "fried": ("fried food", "crispy fried", "tala hua", "frito", "deep fried"),
    "breakfast": ("breakfast", "breakfast items", "nashta", "desayuno", "morning food", "brunch", "नाश्ता"),
    "kids": ("kids food", "for kids", "children's menu", "bachchon ke liye", "para niños", "kid friendly"),
    "filling": ("filling meal", "heavy meal", "something filling", "pet bhar khana", "hearty dinner", "comida abundante"),
    "snack": ("snacks", "evening snacks", "quick bite", "tea time snacks", "botana", "munchies"),
    "street_food": ("street food", "chaat", "roadside snacks", "comida callejera", "thela food"),
    "grilled": ("grilled", "grilled food", "bbq", "barbecue", "a la parrilla", "char grilled"),
    "creamy": ("creamy", "creamy gravy", "rich and creamy", "malai wala", "cremoso"),
    "tangy": ("tangy", "khatta", "sour and tangy", "chatpata"),
    "vegan": ("vegan", "vegan food", "plant based", "dairy free", "sin lacteos", "no dairy"),
    "high_protein": ("high protein", "protein rich food", "protein", "gym food", "alto en proteina", "protein wala khana"),
    "caffeinated": ("caffeine", "coffee", "energy boost", "cafe", "caffeine kick"),
    "soup": ("soup", "soups", "shorba", "sopa", "hot soup", "सूप"),
    "salad": ("salad", "salads", "ensalada", "green salad"),
    "rice": ("rice", "rice bowl", "chawal", "arroz", "rice meal", "चावल"),
    "noodles": ("noodles", "noodle", "fideos", "noodle bowl"),
    "baked": ("baked", "baked goods", "oven baked", "horneado", "from the oven"),
}

COURSE_PHRASINGS: dict[str, tuple[str, ...]] = {
    "beverage": ("drinks", "beverages", "bebidas", "peene ke liye", "something to drink", "पेय"),
    "dessert": ("desserts menu", "dessert options", "sweet course", "postres", "mithai"),
    "bread": ("breads", "indian bread", "roti", "naan and roti", "pan", "रोटी"),
    "side": ("starters", "appetizers", "sides", "entradas", "side dish", "snacks and starters"),
    "main": ("main course", "mains", "plato principal", "khana", "dinner mains"),
}

CUISINE_PHRASINGS: dict[str, tuple[str, ...]] = {
    "North Indian": ("north indian", "punjabi food", "north indian food", "dhaba food", "punjabi khana"),
    "South Indian": ("south indian", "south indian food", "udupi", "tamil food", "kerala food", "dosa idli"),
    "Chinese": ("chinese", "chinese food", "chinese dishes", "comida china"),
    "Italian": ("italian", "italian cuisine", "comida italiana", "pizza and pasta"),
    "Thai": ("thai", "thai food", "thai curry"),
    "Japanese": ("japanese", "japanese food", "sushi bar"),
    "Mexican": ("mexican", "mexican food", "comida mexicana"),
    "Middle Eastern": ("middle eastern", "arabic food", "lebanese food", "turkish food"),
    "Korean": ("korean", "korean food", "k food"),
    "American": ("american", "american food", "fast food"),
    "Mughlai": ("mughlai", "mughlai food", "nawabi khana", "awadhi"),
    "Continental": ("continental", "continental food", "sizzlers"),
    "Vietnamese": ("vietnamese", "vietnamese food"),
    "Mediterranean": ("mediterranean", "greek food", "mediterranean food"),
    "Bakery": ("bakery", "bakery items", "baked treats", "panaderia"),
    "Beverages": ("beverage menu", "drinks menu"),
    "SE Asian": ("asian", "malaysian food", "indonesian food", "burmese food", "pan asian"),
    "European": ("european", "european food", "spanish food", "french food"),
    "Desserts": ("dessert menu", "sweet shop", "dessert place"),
}

PROTEIN_PHRASINGS: dict[str, tuple[str, ...]] = {
    "chicken": ("chicken", "chicken dishes", "murgh", "pollo", "chicken items", "मुर्ग"),
    "mutton": ("mutton", "gosht", "mutton dishes", "goat meat", "mutton items"),
    "lamb": ("lamb", "lamb dishes", "cordero"),
    "fish": ("fish", "fish dishes", "pescado", "machhi", "fish items"),
    "prawn": ("prawns", "shrimp", "camarones", "jhinga", "prawn dishes"),
    "egg": ("egg dishes", "eggs", "anda", "huevos", "egg items"),
    "paneer": ("paneer", "paneer dishes", "cottage cheese", "paneer items", "पनीर"),
    "soya": ("soya", "soya chaap", "soy dishes"),
    "mushroom": ("mushroom", "mushroom dishes", "champinones", "khumb"),
    "tofu": ("tofu", "tofu dishes"),
    "pork": ("pork", "pork dishes", "cerdo"),
    "beef": ("beef", "beef dishes", "carne de res"),
    "seafood": ("seafood", "mariscos", "sea food"),
    "duck": ("duck", "pato"),
}

DIET_PHRASINGS: dict[str, tuple[str, ...]] = {
    "veg": ("veg", "vegetarian", "pure veg", "shakahari", "vegetariano", "no meat", "veg only", "शाकाहारी"),
    "non_veg": ("non veg", "non vegetarian", "meat dishes", "nonveg", "con carne", "maansahari", "मांसाहारी"),
}

# Two-word combinations: a taste/style word with a protein, diet or course word.
COMBO_ADJECTIVES: dict[str, tuple[str, ...]] = {
    "spicy": ("spicy", "teekha"), "healthy": ("healthy",), "fried": ("fried", "crispy"), "grilled": ("grilled", "tandoori"),
    "creamy": ("creamy",), "sweet": ("sweet",), "light": ("light",), "cold_drink": ("cold",), "hot_drink": ("hot",),
    "breakfast": ("breakfast",), "kids": ("kids",),
}
COMBO_NOUNS: dict[str, tuple[str, Callable[[Dish], bool]]] = {
    "chicken": ("chicken", lambda d: d.protein == "chicken"),
    "paneer": ("paneer", lambda d: d.protein == "paneer"),
    "fish": ("fish", lambda d: d.protein == "fish"),
    "mutton": ("mutton", lambda d: d.protein == "mutton"),
    "egg": ("egg", lambda d: d.protein == "egg"),
    "prawn": ("prawns", lambda d: d.protein == "prawn"),
    "veg": ("veg", lambda d: d.diet == "veg"),
    "starters": ("starters", lambda d: d.course == "side"),
    "drinks": ("drinks", lambda d: d.course == "beverage"),
    "mains": ("mains", lambda d: d.course == "main"),
    "snacks": ("snacks", lambda d: "snack" in d.tags or d.course == "side"),
    "rice": ("rice", lambda d: "rice" in d.tags),
    "noodles": ("noodles", lambda d: "noodles" in d.tags),
    "curry": ("curry", lambda d: d.course == "main" and d.cuisine in ("North Indian", "South Indian", "Mughlai", "Thai")),
}


def build_concepts() -> list[Concept]:
    out: list[Concept] = []
    for tag, ph in TAG_PHRASINGS.items():
        if tag == "sweet":
            out.append(Concept("tag:sweet", ph, lambda d: "sweet" in d.tags or d.course == "dessert"))
        else:
            out.append(Concept(f"tag:{tag}", ph, _tag(tag)))
    for course, ph in COURSE_PHRASINGS.items():
        out.append(Concept(f"course:{course}", ph, (lambda c: lambda d: d.course == c)(course)))
    for cuisine, ph in CUISINE_PHRASINGS.items():
        out.append(Concept(f"cuisine:{cuisine}", ph, (lambda c: lambda d: d.cuisine == c)(cuisine)))
    for protein, ph in PROTEIN_PHRASINGS.items():
        out.append(Concept(f"protein:{protein}", ph, (lambda p: lambda d: d.protein == p)(protein)))
    out.append(Concept("diet:veg", DIET_PHRASINGS["veg"], lambda d: d.diet == "veg"))
    out.append(Concept("diet:non_veg", DIET_PHRASINGS["non_veg"], lambda d: d.diet in ("non_veg", "egg")))
    for tag, adjectives in COMBO_ADJECTIVES.items():
        base = (lambda t: (lambda d: "sweet" in d.tags or d.course == "dessert") if t == "sweet" else _tag(t))(tag)
        for noun_key, (noun, noun_ok) in COMBO_NOUNS.items():
            if (tag, noun_key) in (("cold_drink", "chicken"), ("hot_drink", "chicken"), ("cold_drink", "paneer")):
                continue
            phrasings = tuple(f"{adj} {noun}" for adj in adjectives)
            out.append(Concept(f"combo:{tag}+{noun_key}", phrasings, (lambda a, b: lambda d: a(d) and b(d))(base, noun_ok)))
    return out


def all_train_phrasings() -> list[str]:
    return [p for c in build_concepts() for p in c.phrasings]
