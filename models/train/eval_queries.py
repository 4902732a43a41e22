"""The retrieval evaluation queries, written by us, with graded relevance rules.

Each query carries rules (grade, pattern) tried in order on the name_key() of every corpus item (a real menu item
from ../shared/data, see make_eval.py); the first pattern that matches gives the item its grade, no match is grade 0.
    3 = the dish asked for (any rendering: sizes, pieces, brand prefixes)
    2 = the same dish with a qualifier, or a clearly matching item for an abstract query
    1 = related (same family / partially matching)
An optional `not_` pattern drops an item to grade 0 whatever it matched (combo meals, other diets).

Dish queries name dishes of the held-out split (holdout_dishes.txt), so training never saw those dishes; abstract
and category queries use phrasings that the training concepts (concepts.py) do not contain (make_eval.py checks).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    text: str
    kind: str  # exact, misspelled, synonym, hinglish, devanagari, other_language, abstract, category
    rules: tuple[tuple[int, str], ...]
    not_: str | None = None


def Q(text: str, kind: str, *rules: tuple[int, str], not_: str | None = None) -> Query:
    return Query(text, kind, tuple(rules), not_)


# Reusable families (patterns over lower-case, punctuation-free names).
DESSERT = (r"ice ?cream|kulfi|\bcake\b|pastry|brownie|gulab jamun|jamun|rasmalai|rasgull|rasagol|halwa|kheer|payasam|"
           r"barfi|burfi|ladoo|laddu|jalebi|imarti|jangiri|mousse|cheese ?cake|sundae|falooda|faluda|custard|pudding|"
           r"doughnut|donut|muffin|cookie|waffle|\btart\b|rabri|rabdi|shrikhand|mysore pak|kaju katli|peda|sandesh|"
           r"sweet|dessert|cupcake|choco lava|lava cake|tiramisu|gelato|sorbet|basundi|malpua|phirni|firni|cone|"
           r"chocolate(?! (milk)?shake| coffee| frappe)|kunafa|baklava|mithai|modak|souffle|truffle")
COLD_DRINK = (r"cold coffee|iced? tea|ice tea|milk ?shake|\bshake\b|smoothie|lassi|mojito|lemonade|nimbu|shikanji|"
              r"juice|coke|coca cola|pepsi|sprite|fanta|thums up|7 ?up|mountain dew|soda|cooler|frappe|frappuccino|"
              r"buttermilk|chaas|chaach|jaljeera|aam panna|iced|cold brew|falooda|thick shake|slush|mocktail|"
              r"coconut water|water bottle|mineral water|limca|maaza|frooti|red bull|sharbat|sherbet|rooh afza|\bcold\b")
HOT_DRINK = r"\btea\b|\bchai\b|coffee|cappuccino|latte|espresso|americano|hot chocolate|mocha|kadha|green tea|masala tea|filter kaapi|\bkaapi\b|macchiato|flat white|badam milk|haldi doodh|turmeric latte|soup"
NOT_COLD = r"\bcold\b|iced|\bice\b|frappe|shake|cold brew"
SOUTH_INDIAN = r"dosa|dosai|idli|idly|vada|vadai|uttapam|uthappam|uttappa|appam|upma|pongal|sambar|rasam|pesarattu|bisi bele|curd rice|lemon rice|puliyogare|tamarind rice|filter coffee|kesari|medu|paniyaram|parotta|idiyappam|puttu|avial|kozhukatt|chettinad|meals"
CHINESE = r"manchurian|hakka|schezwan|szechuan|chilli (paneer|chicken|potato|garlic|mushroom|fish|prawn|egg|gobi|baby ?corn)|fried rice|chow ?mein|chowmin|momo|dim ?sum|spring roll|manchow|hot (and|n) sour|dragon|kung pao|sweet (and|n) sour|wonton|noodles|chopsuey|chop suey|honey chilli|triple schezwan|american chopsuey|crispy corn|salt (and|n) pepper"
ITALIAN = r"pizza|pasta|spaghetti|penne|fusilli|fettuccine|lasagn|ravioli|risotto|gnocchi|garlic bread|bruschetta|alfredo|arrabbiata|arrabiata|pesto|carbonara|calzone|focaccia|margherita|macaroni|mac (and|n) cheese|panini|tiramisu|minestrone|bolognese|marinara"
MEXICAN = r"taco|burrito|nacho|quesadilla|enchilada|fajita|salsa|guacamole|mexican|tortilla|chimichanga|jalapeno|churro|chipotle"
BREAD_IN = r"\bnaan\b|\bnan\b|\broti\b|kulcha|kulche|paratha|parantha|prantha|\bphulka|chapati|chapathi|bhatura|bhature|\bpuri\b|\bpoori\b|rumali|lachha|laccha|missi|tandoori roti|appam|parotta|\bpav\b|\bpao\b"
PAV = r"\bpav\b|\bpao\b"
KATHI = r"kathi|kati roll|kaathi|frankie|\broll\b"
NOT_KATHI = r"spring roll|egg roll cake|swiss roll|sushi|cinnamon roll|\bmaki\b|rolls? combo"
BIRYANI = r"biryani|biriyani|biriani|briyani|dum pukht|pulao|pulav"
FRIED_SNACK = r"fries|pakora|pakoda|pakodi|bhaji|bajji|samosa|kachori|vada|vadai|\bnuggets?\b|fried chicken|popcorn|crispy|tempura|fritter|cutlet|tikki|spring roll|wings|strips|onion rings|chips|bonda|mirchi bajji|bread pakora|finger"
STREET = r"pav bhaji|vada pav|wada pav|pani ?puri|golgappa|gol gappa|puchka|bhel|sev puri|dahi puri|papdi chaat|\bchaat\b|\bchat\b|dabeli|kachori|samosa|momo|kathi|frankie|\broll\b|tikki|chole kulche|chole bhature|pakora|pakoda|bhaji|misal"
SOUP = r"\bsoup\b|shorba|rasam|manchow|hot (and|n) sour|minestrone|broth|\bpho\b|ramen|tom yum|laksa|chowder|bisque|clear soup|sweet corn soup|lemon coriander"
SALAD = r"salad|caesar|greek salad|kosambari|coleslaw|sprouts|fruit bowl|raita"
RICE = r"rice|biryani|biriyani|pulao|pulav|khichdi|khichuri|bisi bele|pongal|risotto|\bchawal|\bbhat\b|paella|donburi|nasi goreng|fried rice|jeera rice|curd rice"
NOODLE = r"noodle|chow ?mein|chowmin|hakka|ramen|udon|soba|pad thai|maggi|spaghetti|chopsuey|chop suey|lo mein|laksa|\bpho\b|thukpa|khow suey|khao suey"
BREAKFAST = r"idli|idly|dosa|vada|upma|poha|pongal|uttapam|uthappam|paratha|parantha|omelette|omelet|\beggs?\b|bhurji|toast|sandwich|pancake|waffle|croissant|muffin|bagel|cereal|oats|muesli|granola|porridge|aloo puri|poori|puri bhaji|chole bhature|misal|sabudana|thepla|dhokla|chilla|cheela|appam|puttu|idiyappam|\btea\b|\bchai\b|coffee|bread butter|bun maska|paniyaram"
SPICY = r"spicy|chilli|chili|schezwan|szechuan|peri ?peri|hot\b|fiery|jalapeno|pepper|kolhapuri|chettinad|andhra|laal maas|vindaloo|mirchi|tandoori|65|dragon|diablo|habanero|sriracha|buffalo|nashville|gongura|kadai|kadhai|achari|masala"
HEALTHY = r"salad|grilled|steamed|sprouts|oats|quinoa|multigrain|brown rice|millet|ragi|jowar|bajra|whole wheat|wheat|protein|fruit|soup|idli|boiled|tofu|low cal|healthy|diet|keto|green|sugar free|fresh|poha|upma|dal\b|khichdi|bowl|tikka|tandoori|kebab|detox|smoothie|yogurt|curd|sprout"
KIDS = r"fries|nuggets?|pizza|pasta|burger|mac (and|n) cheese|sandwich|milk ?shake|shake|ice ?cream|chocolate|waffle|pancake|cheese|noodles|hot dog|popcorn|brownie|cupcake|donut|doughnut|maggi|smiley|kids|mini|happy meal|choco"
PROTEIN_RICH = r"chicken|mutton|lamb|fish|prawn|egg|paneer|soya|chaap|tofu|keema|kheema|kebab|kabab|tikka|tandoori|rajma|chole|chana|dal\b|sprouts|protein|whey|beef|pork|steak|turkey|seafood|shrimp|crab|omelette|bhurji"
VEG_ONLY_NOT = r"chicken|mutton|lamb|fish|prawn|\begg|beef|pork|keema|kheema|gosht|murgh|meat|bacon|ham\b|salami|pepperoni|sausage|seafood|shrimp|crab|turkey|tuna|salmon|non ?veg"
MEAT = r"chicken|mutton|lamb|fish|prawn|beef|pork|keema|kheema|gosht|murgh|meat|bacon|\bham\b|salami|pepperoni|sausage|seafood|shrimp|crab|turkey|tuna|salmon|non ?veg|boti|seekh|wings|drumstick"

QUERIES: list[Query] = [
    # ---- held-out dishes: exact names ----
    Q("garlic bread", "exact", (3, r"^(classic |plain |butter )?garlic bread( \d+ ?(pieces?|pcs))?$"),
      (2, r"garlic bread|garlic toast"), (1, r"garlic breadstick|garlic knot|bread ?stick|bruschetta"),
      not_=r"stuffed .*chicken|chicken .*garlic bread|combo|meal for"),
    Q("chicken kathi roll", "exact", (3, r"^(classic |spicy )?chicken (kathi |kati |kaathi )?(roll|frankie)( \d+ ?(pieces?|pcs))?$"),
      (2, r"chicken.*(kathi|kati|kaathi|frankie|\broll\b)"), (1, r"kathi|kaathi|frankie|\broll\b"), not_=NOT_KATHI),
    Q("paneer pizza", "exact", (3, r"paneer.*pizza|pizza.*paneer"), (2, r"paneer (makhani|tikka|delight)"),
      (1, r"\bpizza\b"), not_=r"meal for|combo|\+"),
    Q("farmhouse pizza", "exact", (3, r"farm ?house"), (1, r"veg(gie)? (pizza|supreme|loaded)|veggie paradise|mexican green wave|deluxe veggie"),
      not_=r"meal for|combo"),
    Q("mushroom masala", "exact", (3, r"^(kadai |kadhai |masala )?mus?h?r?oom (masala|curry|gravy)$|^masala mushroom$"),
      (2, r"mushroom.*(masala|curry|gravy|do pyaza|matar|kadai|kadhai)"), (1, r"mushroom"), not_=r"pizza|soup|noodle|rice|sandwich|burger"),
    Q("chocolate thick shake", "exact", (3, r"^(\d+ )?chocolate (thick )?shake"), (2, r"choco(late)?.*(shake|frappe)|chocolate milkshake"),
      (1, r"shake"), not_=r"whopper|fries|combo|meal"),
    Q("mocha", "exact", (3, r"^(cafe |choc |hot )?mocha( r| s| regular| small)?$"), (2, r"mocha"), (1, r"cappuccino|latte|coffee|espresso")),
    Q("cheese fries", "exact", (3, r"^(cheese|cheesy|cheese loaded) (french )?fries"), (2, r"(cheese|cheesy).*fries"), (1, r"\bfries\b"),
      not_=r"burger|whopper|combo|meal|with cheese fries"),
    Q("spicy chicken wrap", "exact", (3, r"^(big |mc)?spicy chicken wrap$"), (2, r"chicken.*wrap"), (1, r"\bwrap\b|kathi|frankie"),
      not_=r"combo|meal|fries|coke"),
    Q("choco lava cake", "exact", (3, r"^choco(late)? lava( cake)?( \d+ ?(pieces?|pcs))?$"), (2, r"choco(late)? lava|lava cake"),
      (1, r"chocolate (cake|brownie|pastry|truffle)|brownie"), not_=r"pepsi|beverage|combo|meal|\+"),
    Q("vanilla ice cream", "exact", (3, r"vanilla ice ?cream( \d+ ?ml)?$|^vanilla (scoop|tub|cup)"), (2, r"vanilla.*(ice ?cream|scoop|sundae)"),
      (1, r"ice ?cream|kulfi|gelato|sundae"), not_=r"brownie|waffle|cold coffee|shake"),
    Q("pav bhaji", "exact", (3, r"^(mumbai |bombay |butter |amul |cheese |jain |\w+ )?pa+o?v? bh?aa?ji$|pav bhaji"), (1, r"bhaji|" + PAV),
      not_=r"cold coffee|combo|extra pav"),
    Q("idli sambar", "exact", (3, r"idl[iy] (with )?sambh?ar|sambh?ar idl[iy]"), (2, r"\bidl[iy]\b"), (1, r"sambh?ar|vada|dosa")),
    Q("paneer bhurji", "exact", (3, r"^paneer (bhurji|burji|bhurjee|bhujia)( masala)?$"), (2, r"paneer (bhurji|burji|bhurjee)"),
      (1, r"bhurji|burji")),
    Q("imarti", "exact", (3, r"imarti|jangiri|jhangri|amriti"), (1, r"jalebi|rabri|rabdi"), not_=r"poori|puri|aloo"),
    Q("chilli garlic noodles", "exact", (3, r"^(veg )?chill?i garlic noodles$"), (2, r"chill?i garlic noodles"), (1, r"noodle|hakka|chow ?mein"),
      not_=r"non veg|chicken|egg|prawn"),
    Q("malai soya chaap", "exact", (3, r"^(veg |tandoori )?malai (soya )?chaap( tikka)?$|^soya malai chaap$"), (2, r"malai.*chaap"), (1, r"chaap"), ),
    Q("lamb burger", "exact", (3, r"lamb.*burger"), (1, r"burger|whopper"), not_=r"combo|meal"),
    Q("cheese and corn pizza", "exact", (3, r"(cheese (and |n )?corn|corn (and |n )?cheese).*(pizza|cheese burst|volcano|personal|inch|medium|small)|^(corn (and |n )?cheese|cheese (and |n )?corn)$"), (1, r"\bpizza\b|cheese burst"),
      not_=r"meal for|combo|sandwich|nuggets|balls"),
    Q("tomato soup", "exact", (3, r"^(veg |classic |fresh )?tomato soup"), (2, r"cream of tomato|tomato.*soup|tamatar (soup|shorba)"),
      (1, r"\bsoup\b|shorba")),
    Q("coke zero", "exact", (3, r"coke zero|coca cola zero"), (2, r"diet coke|coke|coca cola"), (1, r"pepsi|sprite|fanta|thums up|soft drink"),
      not_=r"burger|whopper|fries|combo|meal|pizza|\+"),
    Q("peach iced tea", "exact", (3, r"peach ic(e|ed) tea"), (1, r"ic(e|ed) tea"), not_=r"combo"),
    Q("strawberry cheesecake", "exact", (3, r"strawberry.*cheese ?cake"), (1, r"cheese ?cake")),
    Q("mughlai chicken", "exact", (3, r"^(chicken mughlai|mughlai chicken)( curry| boneless)?$"), (2, r"mughlai.*chicken|chicken.*mughlai|murgh mughlai"),
      (1, r"chicken (curry|masala|korma|handi)"), not_=r"pizza"),
    Q("chicken schezwan noodles", "exact", (3, r"chicken schezwan noodles|schezwan chicken (soft )?noodles"),
      (2, r"schezwan.*noodles"), (1, r"chicken.*noodles|noodles.*chicken")),
    Q("chicken grilled sandwich", "exact", (3, r"^(crispy )?chicken (cheese )?grilled sandwich|^grilled chicken sandwich"),
      (2, r"chicken.*sandwich"), (1, r"grilled sandwich|club sandwich")),
    Q("tomato uttapam", "exact", (3, r"tomato (uttapam|uthappam|uttappa|oothappam)"), (2, r"uttapam|uthappam|uttappa|oothappam"), (1, r"dosa")),
    Q("prawn biryani", "exact", (3, r"prawns? (dum )?biryani|jhinga biryani|shrimp biryani"), (1, BIRYANI)),
    Q("mutton keema biryani", "exact", (3, r"(mutton )?(keema|kheema|qeema) biryani"), (1, BIRYANI), not_=r"chicken"),
    Q("kitkat shake", "exact", (3, r"kit ?kat (milk ?)?shake"), (1, r"shake"), not_=r"combo"),
    Q("gobi manchurian dry", "exact", (3, r"gobi manchurian dry"), (2, r"gobi manchurian|cauliflower manchurian"), (1, r"manchurian")),
    Q("egg bhurji", "exact", (3, r"^(egg|anda) (bhurji|burji|bhurjee)( masala)?$"), (2, r"(egg|anda) (bhurji|burji)"), (1, r"bhurji|omelette|scrambled")),
    Q("chocolate chip muffin", "exact", (3, r"choco(late)? ?chip muffin"), (2, r"choco.*muffin"), (1, r"muffin|cupcake")),
    Q("aloo paratha", "exact", (3, r"^(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (2, r"(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (1, r"paratha|parantha"),
      not_=r"combo|thali|meal"),
    Q("chicken manchow soup", "exact", (3, r"chicken manchow|manchow chicken|non veg manchow"), (2, r"manchow"), (1, r"\bsoup\b")),
    Q("watermelon mojito", "exact", (3, r"watermelon mojito"), (1, r"mojito")),
    Q("veg chow mein", "exact", (3, r"^veg(etable)? chow ?mein|^veg(etable)? chowmin"), (2, r"chow ?mein|chowmin"), (1, r"hakka noodles|veg noodles"),
      not_=r"chicken|egg|prawn|non veg"),
    Q("black coffee", "exact", (3, r"black coffee|americano"), (1, r"coffee|espresso"), not_=r"cold|iced|\bice\b|pasta"),
    Q("butter kulcha", "exact", (3, r"butter kulch(a|e)"), (2, r"kulch(a|e)"), (1, r"\bnaan\b|\broti\b")),
    Q("garlic naan", "exact", (3, r"garlic (naan|nan)|(lasooni|lehsuni|lahsuni) naan"), (2, r"\bnaan\b"), (1, r"kulcha|\broti\b")),
    Q("aloo chaat", "exact", (3, r"^(delhi )?(aloo|alu) chaa?t$"), (2, r"aloo.*chaat"), (1, r"\bchaat\b|\bchat\b")),
    Q("raj kachori", "exact", (3, r"raa?j kach(o|au)ri"), (1, r"kachori|\bchaat\b")),
    Q("sarson ka saag", "exact", (3, r"sarso?n? (ka |da )?saag"), (1, r"\bsaag\b|makki")),
    Q("prawn curry", "exact", (3, r"^prawns? (curry|masala)$|jhinga (curry|masala)"), (2, r"prawns? (curry|masala|gravy)"), (1, r"prawn|fish curry")),
    Q("pomegranate juice", "exact", (3, r"pomegranate juice|ana+r juice"), (1, r"\bjuice\b")),
    Q("pineapple lassi", "exact", (3, r"pineapple lassi"), (1, r"\blassi\b")),
    Q("paneer naan", "exact", (3, r"paneer (stuffed )?naan"), (1, r"\bnaan\b|kulcha")),
    Q("open butter masala dosa", "exact", (3, r"open butter masala dosa"), (2, r"butter masala dosa|open dosa"), (1, r"masala dosa"),
      not_=r"combo"),
    Q("fruit custard", "exact", (3, r"fruit custard"), (1, r"custard|fruit salad")),
    Q("cold coffee with ice cream", "exact", (3, r"cold coffee with ice ?cream"), (2, r"cold coffee"), (1, r"frappe|iced coffee")),
    Q("brownie with ice cream", "exact", (3, r"brownie with .*ice ?cream|sizzling brownie"), (2, r"brownie"), (1, r"sundae")),
    Q("apple juice", "exact", (3, r"apple juice"), (1, r"\bjuice\b")),
    Q("boondi raita", "exact", (3, r"b(oo|u)ndi raith?a"), (2, r"raith?a"), (1, r"curd|dahi"), not_=r"poori|puri|aloo"),
    Q("chicken pakora", "exact", (3, r"chicken pako(r|d)(a|i)"), (2, r"chicken (fritters|pakod)"), (1, r"pako(r|d)a")),
    Q("dragon chicken", "exact", (3, r"dragon chicken"), (1, r"chill?i chicken|chicken manchurian")),
    Q("chicken club sandwich", "exact", (3, r"chicken club sandwich|non veg club sandwich"), (2, r"club sandwich"), (1, r"chicken.*sandwich")),
    Q("cheese omelette", "exact", (3, r"cheese omel?ett?e"), (2, r"omel?ett?e"), (1, r"\begg")),
    Q("butter croissant", "exact", (3, r"^(all |plain )?butter croissant"), (2, r"croissant"), not_=r"cappuccino|combo"),
    Q("chicken manchurian dry", "exact", (3, r"^chicken manchurian dry"), (2, r"chicken manchurian"), (1, r"manchurian"), not_=r"combo|ghee rice"),
    Q("mixed veg uttapam", "exact", (3, r"mix(ed)? (veg(etable)? )?(uttapam|uthappam)"), (2, r"uttapam|uthappam"), (1, r"dosa")),
    Q("peri peri chicken strips", "exact", (3, r"peri ?peri chicken strips"), (2, r"chicken strips"), (1, r"peri ?peri chicken|chicken wings")),
    Q("corn kebab", "exact", (3, r"corn (seekh )?keb|corn kab"), (1, r"veg (seekh )?keb|hara bhara")),
    Q("dry fruit kulfi", "exact", (3, r"dry fruits? kulfi"), (2, r"kulfi"), (1, r"ice ?cream")),
    Q("black currant kulfi", "exact", (3, r"black curr(a|e)nt kulfi|kulfi black curr"), (2, r"black curr(a|e)nt"), (1, r"kulfi")),
    # ---- misspelled ----
    Q("garlik bred", "misspelled", (3, r"^(classic |plain |butter )?garlic bread( \d+ ?(pieces?|pcs))?$"), (2, r"garlic bread|garlic toast"),
      (1, r"garlic breadstick|bread ?stick"), not_=r"stuffed .*chicken|chicken .*garlic bread|combo|meal for"),
    Q("panner pizza", "misspelled", (3, r"paneer.*pizza|pizza.*paneer"), (1, r"\bpizza\b"), not_=r"meal for|combo|\+"),
    Q("mashroom masala", "misspelled", (3, r"^(kadai |kadhai |masala )?mus?h?r?oom (masala|curry|gravy)$"), (2, r"mushroom.*(masala|curry|gravy)"),
      (1, r"mushroom"), not_=r"pizza|soup|noodle|rice|sandwich|burger"),
    Q("chocolava cake", "misspelled", (3, r"^choco(late)? lava( cake)?( \d+ ?(pieces?|pcs))?$"), (2, r"choco(late)? lava|lava cake"),
      (1, r"brownie|chocolate (cake|pastry)"), not_=r"pepsi|beverage|combo|meal|\+"),
    Q("paav bhaaji", "misspelled", (3, r"pav bhaji|pao bhaji"), (1, r"bhaji|" + PAV), not_=r"cold coffee|combo|extra pav"),
    Q("idly sambhar", "misspelled", (3, r"idl[iy] (with )?sambh?ar|sambh?ar idl[iy]"), (2, r"\bidl[iy]\b"), (1, r"sambh?ar|vada")),
    Q("aaloo parantha", "misspelled", (3, r"^(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (2, r"(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (1, r"paratha|parantha"),
      not_=r"combo|thali|meal"),
    Q("vanila icecream", "misspelled", (3, r"vanilla ice ?cream( \d+ ?ml)?$"), (2, r"vanilla.*(ice ?cream|scoop|sundae)"), (1, r"ice ?cream"),
      not_=r"brownie|waffle|cold coffee|shake"),
    Q("tomatto soop", "misspelled", (3, r"^(veg |classic |fresh )?tomato soup"), (2, r"tomato.*soup"), (1, r"\bsoup\b")),
    Q("chiken kathi rol", "misspelled", (3, r"^(classic |spicy )?chicken (kathi |kati |kaathi )?(roll|frankie)( \d+ ?(pieces?|pcs))?$"),
      (2, r"chicken.*(kathi|kati|kaathi|frankie|\broll\b)"), (1, r"kathi|kaathi|frankie|\broll\b"), not_=NOT_KATHI),
    Q("prwan biryani", "misspelled", (3, r"prawns? (dum )?biryani"), (1, BIRYANI)),
    Q("gobhi manchurian dry", "misspelled", (3, r"gobi manchurian dry"), (2, r"gobi manchurian"), (1, r"manchurian")),
    Q("chese fries", "misspelled", (3, r"^(cheese|cheesy) (french )?fries"), (2, r"(cheese|cheesy).*fries"), (1, r"\bfries\b"),
      not_=r"burger|whopper|combo|meal|with cheese fries"),
    Q("pomegranite juice", "misspelled", (3, r"pomegranate juice|ana+r juice"), (1, r"\bjuice\b")),
    Q("watermellon mojito", "misspelled", (3, r"watermelon mojito"), (1, r"mojito")),
    Q("chocolate chip mufin", "misspelled", (3, r"choco(late)? ?chip muffin"), (2, r"choco.*muffin"), (1, r"muffin|cupcake")),
    Q("kit kat shak", "misspelled", (3, r"kit ?kat (milk ?)?shake"), (1, r"shake"), not_=r"combo"),
    Q("sarso ka sag", "misspelled", (3, r"sarso?n? (ka |da )?saag"), (1, r"\bsaag\b|makki")),
    Q("raj kachauri", "misspelled", (3, r"raa?j kach(o|au)ri"), (1, r"kachori|\bchaat\b")),
    Q("butter kulche", "misspelled", (3, r"butter kulch(a|e)"), (2, r"kulch(a|e)"), (1, r"\bnaan\b|\broti\b")),
    # ---- synonyms and other names ----
    Q("chicken frankie", "synonym", (3, r"^(classic |spicy )?chicken (kathi |kati |kaathi )?(roll|frankie)( \d+ ?(pieces?|pcs))?$"),
      (2, r"chicken.*(kathi|kati|kaathi|frankie|\broll\b)"), (1, r"kathi|kaathi|frankie|\broll\b"), not_=NOT_KATHI),
    Q("mutton frankie", "synonym", (3, r"mutton (kathi |kaathi |boti )?(roll|frankie)"), (2, r"mutton.*(roll|frankie)"), (1, r"kathi|frankie|\broll\b"),
      not_=NOT_KATHI),
    Q("scrambled paneer", "synonym", (3, r"^paneer (bhurji|burji|bhurjee|bhujia)( masala)?$"), (2, r"paneer (bhurji|burji)"), (1, r"bhurji")),
    Q("masala scrambled eggs", "synonym", (3, r"^(egg|anda) (bhurji|burji|bhurjee)( masala)?$"), (2, r"(egg|anda) (bhurji|burji)"),
      (1, r"bhurji|omelette|scrambled")),
    Q("tandoori mushroom", "synonym", (3, r"^(mushroom tikka|tandoori mushroom|khumb tikka)( large| medium)?$"), (2, r"mushroom.*(tikka|tandoori)|khumb"), (1, r"mushroom")),
    Q("cashew chicken", "synonym", (3, r"cashew chicken|chicken (with )?cashew"), (1, r"kaju.*chicken|chicken.*kaju")),
    Q("corn cheese pizza", "synonym", (3, r"(cheese (and |n )?corn|corn (and |n )?cheese).*(pizza|cheese burst|volcano|personal|inch|medium|small)|^(corn (and |n )?cheese|cheese (and |n )?corn)$"), (1, r"\bpizza\b|cheese burst"),
      not_=r"meal for|combo|sandwich|nuggets|balls"),
    Q("jangiri", "synonym", (3, r"imarti|jangiri|jhangri|amriti"), (1, r"jalebi|rabri|rabdi"), not_=r"poori|puri|aloo"),
    Q("mustard greens curry", "synonym", (3, r"sarso?n? (ka |da )?saag"), (1, r"\bsaag\b|palak")),
    Q("shrimp curry", "synonym", (3, r"^prawns? (curry|masala)$"), (2, r"prawns? (curry|masala|gravy)"), (1, r"prawn")),
    Q("spiced potato stuffed flatbread", "synonym", (3, r"^(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (2, r"(aloo|alu|aalu) (pa|pra)r?a?n?tha"),
      (1, r"paratha|parantha|kulcha"), not_=r"combo|thali|meal"),
    Q("banana leaf meals", "synonym", (3, r"south indian (veg )?meals|full meals|south meals|bhojanam|saapadu"), (1, r"\bmeals\b|thali")),
    Q("veg chowmin", "synonym", (3, r"^veg(etable)? chow ?mein|^veg(etable)? chowmin"), (2, r"chow ?mein|chowmin"), (1, r"hakka noodles|veg noodles"),
      not_=r"chicken|egg|prawn|non veg"),
    # ---- Hinglish ----
    Q("anda bhurji", "hinglish", (3, r"^(egg|anda) (bhurji|burji|bhurjee)( masala)?$"), (2, r"(egg|anda) (bhurji|burji)"), (1, r"bhurji|omelette")),
    Q("jhinga biryani", "hinglish", (3, r"prawns? (dum )?biryani|jhinga biryani"), (1, BIRYANI)),
    Q("tamatar ka soup", "hinglish", (3, r"^(veg |classic |fresh )?tomato soup|tamatar"), (2, r"tomato.*soup"), (1, r"\bsoup\b|shorba")),
    Q("anar ka juice", "hinglish", (3, r"pomegranate juice|ana+r juice"), (1, r"\bjuice\b")),
    Q("adrak wali chai", "hinglish", (3, r"ginger (tea|chai)|adrak"), (2, r"masala (tea|chai)|\bchai\b|\btea\b"), (1, r"coffee"),
      not_=NOT_COLD + r"|green tea"),
    Q("lehsuni naan", "hinglish", (3, r"garlic (naan|nan)|(lasooni|lehsuni|lahsuni) naan"), (2, r"\bnaan\b"), (1, r"kulcha|\broti\b")),
    Q("murgh mughlai", "hinglish", (3, r"^(chicken mughlai|mughlai chicken)( curry| boneless)?$"), (2, r"mughlai.*chicken|chicken.*mughlai"),
      (1, r"chicken (curry|masala|korma)"), not_=r"pizza"),
    Q("kadhi chawal", "hinglish", (3, r"kadhi.*(chawal|rice)"), (2, r"\bkadhi\b"), (1, r"rajma chawal|dal chawal")),
    Q("aloo ka paratha", "hinglish", (3, r"^(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (2, r"(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (1, r"paratha|parantha"),
      not_=r"combo|thali|meal"),
    Q("moongfali chaat", "hinglish", (3, r"peanut (chaat|masala)|masala peanut|moong ?fali"), (1, r"\bchaat\b")),
    Q("murgh pakora", "hinglish", (3, r"chicken pako(r|d)(a|i)"), (1, r"pako(r|d)a")),
    Q("khumb tikka", "hinglish", (3, r"^(mushroom tikka|tandoori mushroom|khumb tikka)( large| medium)?$"), (2, r"mushroom.*(tikka|tandoori)|khumb"), (1, r"mushroom")),
    # ---- Devanagari ----
    Q("पाव भाजी", "devanagari", (3, r"pav bhaji|pao bhaji"), (1, r"bhaji|" + PAV), not_=r"cold coffee|combo|extra pav"),
    Q("आलू पराठा", "devanagari", (3, r"^(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (2, r"(aloo|alu|aalu) (pa|pra)r?a?n?tha"), (1, r"paratha|parantha"),
      not_=r"combo|thali|meal"),
    Q("टमाटर सूप", "devanagari", (3, r"^(veg |classic |fresh )?tomato soup"), (2, r"tomato.*soup"), (1, r"\bsoup\b|shorba")),
    Q("इडली सांभर", "devanagari", (3, r"idl[iy] (with )?sambh?ar|sambh?ar idl[iy]"), (2, r"\bidl[iy]\b"), (1, r"sambh?ar|vada")),
    Q("पनीर भुर्जी", "devanagari", (3, r"^paneer (bhurji|burji|bhurjee|bhujia)( masala)?$"), (2, r"paneer (bhurji|burji)"), (1, r"bhurji")),
    Q("अंडा भुर्जी", "devanagari", (3, r"^(egg|anda) (bhurji|burji|bhurjee)( masala)?$"), (2, r"(egg|anda) (bhurji|burji)"), (1, r"bhurji|omelette")),
    Q("गार्लिक नान", "devanagari", (3, r"garlic (naan|nan)|(lasooni|lehsuni|lahsuni) naan"), (2, r"\bnaan\b"), (1, r"kulcha|\broti\b")),
    Q("इमरती", "devanagari", (3, r"imarti|jangiri|jhangri|amriti"), (1, r"jalebi|rabri|rabdi"), not_=r"poori|puri|aloo"),
    Q("सरसों का साग", "devanagari", (3, r"sarso?n? (ka |da )?saag"), (1, r"\bsaag\b|makki")),
    Q("राज कचौरी", "devanagari", (3, r"raa?j kach(o|au)ri"), (1, r"kachori|\bchaat\b")),
    Q("बूंदी रायता", "devanagari", (3, r"b(oo|u)ndi raith?a"), (2, r"raith?a"), (1, r"curd|dahi"), not_=r"poori|puri|aloo"),
    Q("चिकन रोल", "devanagari", (3, r"^(classic |spicy )?chicken (kathi |kati |kaathi )?(roll|frankie)( \d+ ?(pieces?|pcs))?$"),
      (2, r"chicken.*(kathi|kati|kaathi|frankie|\broll\b)"), (1, r"kathi|kaathi|frankie|\broll\b"), not_=NOT_KATHI),
    Q("मशरूम मसाला", "devanagari", (3, r"^(kadai |kadhai |masala )?mus?h?r?oom (masala|curry|gravy)$"), (2, r"mushroom.*(masala|curry|gravy)"),
      (1, r"mushroom"), not_=r"pizza|soup|noodle|rice|sandwich|burger"),
    Q("अनार जूस", "devanagari", (3, r"pomegranate juice|ana+r juice"), (1, r"\bjuice\b")),
    Q("गार्लिक ब्रेड", "devanagari", (3, r"^(classic |plain |butter )?garlic bread( \d+ ?(pieces?|pcs))?$"), (2, r"garlic bread|garlic toast"),
      (1, r"bread ?stick"), not_=r"stuffed .*chicken|chicken .*garlic bread|combo|meal for"),
    # ---- other languages ----
    Q("pan de ajo", "other_language", (3, r"^(classic |plain |butter )?garlic bread( \d+ ?(pieces?|pcs))?$"), (2, r"garlic bread|garlic toast"),
      (1, r"bread ?stick"), not_=r"stuffed .*chicken|chicken .*garlic bread|combo|meal for"),
    Q("sopa de tomate", "other_language", (3, r"^(veg |classic |fresh )?tomato soup"), (2, r"tomato.*soup"), (1, r"\bsoup\b|shorba")),
    Q("helado de vainilla", "other_language", (3, r"vanilla ice ?cream( \d+ ?ml)?$"), (2, r"vanilla.*(ice ?cream|scoop|sundae)"), (1, r"ice ?cream"),
      not_=r"brownie|waffle|cold coffee|shake"),
    Q("jugo de manzana", "other_language", (3, r"apple juice"), (1, r"\bjuice\b")),
    Q("jugo de granada", "other_language", (3, r"pomegranate juice|ana+r juice"), (1, r"\bjuice\b")),
    Q("café negro", "other_language", (3, r"black coffee|americano"), (1, r"coffee|espresso"), not_=r"cold|iced|\bice\b|pasta"),
    Q("curry de gambas", "other_language", (3, r"^prawns? (curry|masala)$"), (2, r"prawns? (curry|masala|gravy)"), (1, r"prawn")),
    Q("tarta de queso con fresas", "other_language", (3, r"strawberry.*cheese ?cake"), (1, r"cheese ?cake")),
    Q("croissant au beurre", "other_language", (3, r"^(all |plain )?butter croissant"), (2, r"croissant"), not_=r"cappuccino|combo"),
    Q("té helado de durazno", "other_language", (3, r"peach ic(e|ed) tea"), (1, r"ic(e|ed) tea")),
    Q("batido de chocolate", "other_language", (3, r"^(\d+ )?chocolate (thick )?shake"), (2, r"choco(late)?.*(shake|frappe)"), (1, r"shake"),
      not_=r"whopper|fries|combo|meal"),
    Q("pizza de maíz y queso", "other_language", (3, r"(cheese (and |n )?corn|corn (and |n )?cheese).*(pizza|cheese burst|volcano|personal|inch|medium|small)|^(corn (and |n )?cheese|cheese (and |n )?corn)$"), (1, r"\bpizza\b"),
      not_=r"meal for|combo|sandwich|nuggets|balls"),
    # ---- abstract ----
    Q("craving something sugary after dinner", "abstract", (2, DESSERT), (1, r"shake|falooda|lassi|hot chocolate"),
      not_=r"sweet corn|sweet (and|n) sour|sweet chilli|sweet potato|chicken|paneer|burger|pizza|combo|meal"),
    Q("kuch meetha ho jaye", "abstract", (2, DESSERT), (1, r"shake|falooda|lassi"),
      not_=r"sweet corn|sweet (and|n) sour|sweet chilli|sweet potato|chicken|paneer|burger|pizza|combo|meal"),
    Q("un postre", "abstract", (2, DESSERT), (1, r"shake|falooda"),
      not_=r"sweet corn|sweet (and|n) sour|sweet chilli|sweet potato|chicken|paneer|burger|pizza|combo|meal"),
    Q("beat the summer heat with a chilled drink", "abstract", (2, COLD_DRINK), (1, r"ice ?cream|kulfi|gola"),
      not_=r"burger|whopper|fries|combo|meal|pizza|wrap|\+|hot coffee|cold cuts"),
    Q("kuch thanda pilao", "abstract", (2, COLD_DRINK), (1, r"ice ?cream|kulfi"),
      not_=r"burger|whopper|fries|combo|meal|pizza|wrap|\+|cold cuts"),
    Q("una bebida bien fría", "abstract", (2, COLD_DRINK), (1, r"ice ?cream"), not_=r"burger|whopper|fries|combo|meal|pizza|wrap|\+|cold cuts"),
    Q("warm cup for a rainy evening", "abstract", (2, HOT_DRINK), (1, r"pakora|pakoda|bhaji|samosa"), not_=NOT_COLD + r"|combo"),
    Q("garam chai ya coffee", "abstract", (2, r"\btea\b|\bchai\b|coffee|cappuccino|latte|espresso|kaapi"), (1, r"hot chocolate|badam milk"),
      not_=NOT_COLD + r"|combo"),
    Q("guilt free low calorie lunch", "abstract", (2, r"salad|grilled (chicken|fish|paneer|veg)|steamed|sprouts|quinoa|oats|millet|ragi|brown rice|multigrain|soup|tofu|healthy|diet|keto|protein bowl|buddha bowl"),
      (1, HEALTHY), not_=r"fried|fries|cheese burst|butter|cream|pizza|burger|shake|ice ?cream|cake|brownie|pastry|dessert|chocolate"),
    Q("something light on the stomach", "abstract", (2, r"idli|idly|soup|salad|khichdi|curd rice|upma|poha|steamed|dal\b|clear soup|sprouts|fruit|dhokla|rasam"),
      (1, r"dosa|uttapam|toast|sandwich|raita|buttermilk|chaas"),
      not_=r"fried|fries|cheese burst|butter chicken|biryani|pizza|burger|shake|ice ?cream|cake|brownie"),
    Q("fiery hot dishes for spice lovers", "abstract", (2, r"spicy|chilli|chili|schezwan|peri ?peri|fiery|kolhapuri|chettinad|andhra|vindaloo|laal maas|mirchi|65|jalapeno|hot (and|n) garlic|dragon|gongura"),
      (1, r"pepper|masala|tandoori|kadai|kadhai|achari|tikka"), not_=r"sweet|ice ?cream|shake|cake|combo"),
    Q("what should my kids eat", "abstract", (2, r"fries|nuggets?|pizza|pasta|burger|mac (and|n) cheese|happy meal|smiley|hot dog|maggi|kids"),
      (1, r"sandwich|shake|ice ?cream|chocolate|waffle|pancake|noodles|popcorn|brownie|cupcake|donut"), not_=r"spicy|peri ?peri|schezwan|chilli"),
    Q("morning nashta", "abstract", (2, BREAKFAST), (1, r"juice|lassi"), not_=r"biryani|pizza|burger|ice ?cream|cake|brownie|shake|combo|meal for"),
    Q("late night munchies", "abstract", (2, r"fries|nuggets?|burger|momo|\broll\b|frankie|sandwich|maggi|nachos|popcorn|wings|pizza|shawarma|wrap"),
      (1, FRIED_SNACK + r"|noodles|fried rice|chaat"), not_=r"combo|meal for|thali"),
    Q("chaat and street snacks", "abstract", (2, STREET), (1, FRIED_SNACK), not_=r"combo|meal for|thali|spring roll"),
    Q("high protein meal for the gym", "abstract", (2, r"chicken|egg|paneer|soya|chaap|tofu|fish|prawn|mutton|protein|sprouts|whey|keema|kebab|tikka"),
      (1, PROTEIN_RICH), not_=r"ice ?cream|cake|brownie|shake|pastry|dessert|fries|juice|cola"),
    Q("comfort food on a cold day", "abstract", (2, r"soup|khichdi|dal (chawal|rice)|rajma chawal|kadhi chawal|mac (and|n) cheese|maggi|ramen|thukpa|hot chocolate|stew|shorba|\bchai\b|pongal"),
      (1, r"biryani|curry|dal|noodles|pasta|paratha|butter chicken"), not_=r"cold|iced|ice ?cream|salad|shake|combo"),
    Q("deep fried snacks", "abstract", (2, FRIED_SNACK), (1, r"chaat|momo|bhel|puri"), not_=r"combo|meal|grilled|steamed"),
    # ---- categories: cuisine, course, protein, diet ----
    Q("south indian tiffin", "category", (2, SOUTH_INDIAN), (1, r"coffee|kesari|chutney"), not_=r"pizza|burger|combo"),
    Q("indo chinese", "category", (2, CHINESE), (1, r"soup|chilli|garlic"), not_=r"pizza|burger|combo|meal for"),
    Q("italian food", "category", (2, ITALIAN), (1, r"cheese|olive|basil"), not_=r"combo|meal for|\+"),
    Q("tex mex", "category", (2, MEXICAN), (1, r"peri ?peri|cheese|bean"), not_=r"combo|meal for"),
    Q("hyderabadi dum", "category", (2, BIRYANI), (1, r"haleem|salan|korma|kebab|double ka meetha"), not_=r"combo|meal for"),
    Q("indian flatbreads", "category", (2, BREAD_IN), (1, r"bread|bun"), not_=r"combo|thali|meal|pizza|garlic bread|sandwich|pav bhaji|vada pav"),
    Q("soup bowls", "category", (2, SOUP), (1, r"stew|broth"), not_=r"combo|meal for"),
    Q("fresh salads", "category", (2, SALAD), (1, r"sprouts|fruit|bowl"), not_=r"combo|burger|sandwich|pizza"),
    Q("rice dishes", "category", (2, RICE), (1, r"thali|meals|bowl"), not_=r"rice cake|rice krispies|combo|meal for"),
    Q("noodle dishes", "category", (2, NOODLE), (1, r"pasta|soup"), not_=r"combo|meal for"),
    Q("murgh ke pakwan", "category", (2, r"chicken|murgh"), (1, r"wings|drumstick|nuggets"), not_=r"combo|meal for|\+"),
    Q("platos de pollo", "category", (2, r"chicken|murgh"), (1, r"wings|drumstick|nuggets"), not_=r"combo|meal for|\+"),
    Q("gosht dishes", "category", (2, r"mutton|gosht|lamb|keema|kheema|raan|nalli"), (1, r"goat|meat|seekh"), not_=r"chicken|combo|meal for"),
    Q("machli", "category", (2, r"\bfish\b|pomfret|surmai|rawas|basa|salmon|tuna|bangda|mackerel|meen|machli|machhli|tilapia|seer|king fish|kingfish|sole"),
      (1, r"prawn|seafood|crab|squid|calamari"), not_=r"combo|meal for"),
    Q("jhinga dishes", "category", (2, r"prawns?|shrimp|jhinga"), (1, r"seafood|fish|crab"), not_=r"combo|meal for"),
    Q("anda items", "category", (2, r"\beggs?\b|anda|omelette|omelet|bhurji"), (1, r"egg"), not_=r"eggless|combo|meal for"),
    Q("paneer specials", "category", (2, r"paneer|cottage cheese"), (1, r"chaap|tofu"), not_=r"combo|meal for|\+"),
    Q("pure vegetarian mains", "category", (2, r"paneer|dal\b|daal|rajma|chole|chana|kofta|aloo|gobi|bhindi|mix veg|mixed veg|veg (kolhapuri|kadai|jalfrezi|handi|curry|korma)|malai|matar|mushroom|palak|baingan|kadhi|sabzi|sabji"),
      (1, r"\bveg\b|vegetable|veggie"), not_=VEG_ONLY_NOT + r"|combo|meal for|ice ?cream|shake|juice|cake"),
    Q("non vegetarian starters", "category", (2, r"(chicken|mutton|fish|prawn|lamb).*(tikka|kebab|kabab|65|lollipop|wings|fry|fried|tandoori|pakora|pakoda|seekh|malai|chilli|manchurian|strips|nuggets|popcorn|fingers)|(tandoori|chilli|crispy|fried|honey) (chicken|fish|prawn)|chicken wings"),
      (1, MEAT), not_=r"biryani|curry|rice|noodles|combo|meal for|soup|pizza|burger|masala|gravy"),
    Q("sin carne", "category", (2, r"\bveg\b|vegetable|veggie|paneer|aloo|gobi|mushroom|dal\b|chole|rajma|tofu|corn|cheese|margherita|falafel|hummus|salad"),
      (1, r"idli|dosa|vada|naan|roti|fries"), not_=VEG_ONLY_NOT),
    Q("bakery treats", "category", (2, r"\bcake\b|pastry|muffin|cookie|cupcake|croissant|brownie|doughnut|donut|\bpuff\b|tart|bun\b|\bbread\b|rusk|bagel|danish|macaron|cheesecake|loaf"),
      (1, r"sandwich|toast|pie"), not_=r"garlic bread|pav bhaji|combo"),
    Q("coffee shop menu", "category", (2, r"coffee|cappuccino|latte|espresso|americano|mocha|macchiato|frappe|cold brew|flat white"),
      (1, r"\btea\b|hot chocolate|croissant|muffin|cookie|brownie|sandwich"), not_=r"combo"),
    Q("mocktails and coolers", "category", (2, r"mojito|mocktail|cooler|lemonade|punch|virgin|colada|blue lagoon|spritzer|fizz|sparkler|iced tea|ice tea"),
      (1, COLD_DRINK), not_=r"burger|whopper|fries|combo|meal|pizza|wrap|\+"),
    Q("lassi and shakes", "category", (2, r"lassi|milk ?shake|\bshake\b|smoothie|thick shake"), (1, r"falooda|cold coffee|buttermilk|chaas"),
      not_=r"burger|whopper|fries|combo|meal"),
    Q("tandoor se", "category", (2, r"tandoori|tikka|seekh|kebab|kabab|tandoor|malai|reshmi|\bnaan\b|kulcha|\broti\b"), (1, r"grill|afghani|achari"),
      not_=r"pizza|burger|combo|meal for|sandwich|wrap|roll|biryani|masala"),
    Q("burgers and fries", "category", (2, r"burger|whopper|fries"), (1, r"nuggets|wrap|sandwich|hot dog"), not_=r"pizza"),
    Q("momos and dumplings", "category", (2, r"momo|dim ?sum|dumpling|wonton|gyoza|bao|potsticker|mandu|kozhukatt|modak"), (1, r"spring roll"),
      not_=r"combo|meal for"),
    Q("mithai box", "category", (2, r"gulab jamun|jamun|rasmalai|rasgull|barfi|burfi|ladoo|laddu|jalebi|imarti|jangiri|peda|sandesh|kaju katli|mysore pak|soan papdi|halwa|rabri|rabdi|cham cham|malpua|ghevar|petha|kalakand|mithai|milk cake"),
      (1, r"kheer|payasam|kulfi|sweet"), not_=r"sweet corn|sweet (and|n) sour|sweet chilli|sweet potato|combo"),
]
