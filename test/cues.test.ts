import t from 'tap';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  categoryOf,
  cuisineCue,
  dietOf,
  flavourReadingOf,
  loadCueLexicons,
  menuTextCues,
  proteinOf,
  tokenizeMenuText,
} from '../src/core/knowledge/cues.js';
import type { DietCue } from '../src/core/knowledge/cues.js';
import { CUISINE_LABELS } from '../src/core/knowledge/dishes.js';
import type { Course, Cuisine, Protein } from '../src/core/knowledge/dishes.js';
import { KNOWLEDGE_DIR } from '../src/core/paths.js';
import { loadKnowledge } from '../src/core/knowledge/index.js';

const lex = loadKnowledge().cues;
const tokenize = (text: string) => tokenizeMenuText(text, lex.boundaries);

// ---------------------------------------------------------------------------------------------------------------
// dietOf

const DIET_CASES: readonly (readonly [string, DietCue])[] = [
  // plain meat, egg and veg words
  ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'non_veg'],
  ['Premium Southwest Salad (without Chicken)', 'veg'],
  ['Mutton Rogan Josh', 'non_veg'],
  ['Fish Curry Meal', 'non_veg'],
  ['Prawn Masala', 'non_veg'],
  ['Butter Chicken', 'non_veg'],
  ['Lamb Chops', 'non_veg'],
  ['Pork Ribs', 'non_veg'],
  ['Beef Burger', 'non_veg'],
  ['Crab Lollipop', 'non_veg'],
  ['Grilled Salmon with Lemon Butter', 'non_veg'],
  ['Duck Roast', 'non_veg'],
  ['Roast Turkey Sandwich', 'non_veg'],
  ['Squid Rings', 'non_veg'],
  ['Seafood Paella', 'non_veg'],
  ['Bacon Cheese Burger', 'non_veg'],
  ['Ham and Cheese Croissant', 'non_veg'],
  ['Egg Fried Rice', 'egg'],
  ['Masala Omelette', 'egg'],
  ['Bread Omelette', 'egg'],
  ['Anda Curry', 'egg'],
  ['Boiled Eggs (2 Pcs)', 'egg'],
  ['Egg Bhurji Pav', 'egg'],
  ['Paneer Butter Masala', 'veg'],
  ['Aloo Gobi', 'veg'],
  ['Dal Tadka', 'veg'],
  ['Chana Masala', 'veg'],
  ['Veg Hakka Noodles', 'veg'],
  ['Mushroom Do Pyaza', 'veg'],
  ['Masala Dosa', 'veg'],
  ['Butter Naan', 'veg'],
  ['Mango Lassi', 'veg'],
  ['Coke 500ml', 'veg'],
  ['Gulab Jamun (2 Pcs)', 'veg'],
  ['Tofu Stir Fry', 'veg'],
  ['Soya Chaap Masala', 'veg'],
  ['Pure Veg Thali', 'veg'],
  ['Jain Pav Bhaji', 'veg'],
  // egg + meat is non_veg; non-veg anywhere beats veg words
  ['Egg Chicken Roll', 'non_veg'],
  ['Chicken Egg Fried Rice', 'non_veg'],
  ['Mixed Fried Rice with Egg and Chicken', 'non_veg'],
  ['Dal Gosht', 'non_veg'],
  ['Aloo Keema', 'non_veg'],
  ['Keema Matar', 'non_veg'],
  ['Paneer Chicken Combo', 'non_veg'],
  ['Veg Biryani + Chicken Kebab', 'non_veg'],
  ['Veg Burger and Chicken Wings Combo', 'non_veg'],
  ['Mushroom Chicken', 'non_veg'],
  ['Chicken Vegetable Soup', 'non_veg'],
  ['Non-Veg Thali', 'non_veg'],
  ['Premium Non-Veg Chicken Thali', 'non_veg'],
  ['Party Combo (N Veg)', 'non_veg'],
  // eggless / egg-free never egg
  ['Eggless Chocolate Truffle Cake 500g', 'veg'],
  ['Egg-free Brownie', 'veg'],
  ['Eggless Mayo Sandwich', 'veg'],
  ['Vanilla Cake (Eggless)', 'veg'],
  ['Cake w/o egg', 'veg'],
  ['Vegan Omelette', 'veg'],
  ['Tomato Omelette', 'veg'],
  ['Veg Omelette', 'egg'],
  ['Eggplant Parmigiana', 'veg'],
  // veg copies of meat dishes
  ['Veg Seekh Kebab', 'veg'],
  ['Veg Seekh Kebab Roll', 'veg'],
  ['Veg Keema Kulcha Burger', 'veg'],
  ['Soya Keema Pav', 'veg'],
  ['Soya Chicken', 'veg'],
  ['Mock Meat Biryani', 'veg'],
  ['Mock Chicken Tikka', 'veg'],
  ['Plant-Based Chicken Burger', 'veg'],
  ['Chicken-style Nuggets', 'veg'],
  ['Vegan Butter Chicken', 'veg'],
  ['Veg Shami Kebab', 'veg'],
  ['Mushroom Galouti Kebab', 'veg'],
  ['Paneer Seekh Kebab', 'veg'],
  ['Mushroom Keema', 'veg'],
  ['Falafel Doner Wrap', 'veg'],
  ['Paneer Shawarma Wrap', 'veg'],
  ['Shawarma Paneer Roll', 'veg'],
  ['Veg Lollipop', 'veg'],
  ['Cauliflower Wings', 'veg'],
  ['Veg Pepperoni Pizza', 'veg'],
  ['Veg Sausage Hot Dog', 'veg'],
  ['Subz Seekh Kebab', 'veg'],
  ['Zinger Burger - Veg', 'veg'],
  ['Whopper Deal for 2 (Veg)', 'veg'],
  ['Veg Manchurian', 'veg'],
  // meat by default
  ['Seekh Kebab', 'non_veg'],
  ['Keema Pav', 'non_veg'],
  ['Shami Kebab (2 Pcs)', 'non_veg'],
  ['Hot Wings (6 Pcs)', 'non_veg'],
  ['Boneless Wings Regular', 'non_veg'],
  ['Pepperoni Pizza', 'non_veg'],
  ['Classic Zinger Burger', 'non_veg'],
  ['Tangdi Kebab', 'non_veg'],
  ['Nalli Nihari', 'non_veg'],
  ['Shawarma Plate', 'non_veg'],
  ['Chicken Lollipop', 'non_veg'],
  ['Lollipop (6 Pcs)', 'non_veg'],
  // drumstick: vegetable vs chicken
  ['Drumstick Sambar', 'veg'],
  ['Murungakkai Sambar', 'veg'],
  ['Drumstick Leaves Poriyal', 'veg'],
  ['Chicken Drumstick', 'non_veg'],
  ['Fried Drumsticks (4 Pcs)', 'non_veg'],
  // 65s
  ['Chicken 65', 'non_veg'],
  ['Gobi 65', 'veg'],
  ['Paneer 65', 'veg'],
  ['Baby Corn 65', 'veg'],
  // words that only look like meat or egg
  ['Oyster Mushroom Stir Fry', 'veg'],
  ['Rajma (Kidney Beans) Curry', 'veg'],
  ['Chickpea Salad', 'veg'],
  ['Bhindi Masala (Lady Finger)', 'veg'],
  ['Goat Cheese Salad', 'veg'],
  ['Dim Sum Basket', 'unknown'],
  // Hinglish, Devanagari, Indic scripts, Spanish/French/Italian
  ['Murgh Makhani', 'non_veg'],
  ['Machli Fry', 'non_veg'],
  ['Jhinga Masala', 'non_veg'],
  ['Kozhi Varutha Curry', 'non_veg'],
  ['चिकन बिरयानी', 'non_veg'],
  ['मुर्ग मखनी', 'non_veg'],
  ['अंडा करी', 'egg'],
  ['पनीर टिक्का', 'veg'],
  ['मसाला डोसा', 'veg'],
  ['கோழி குழம்பு', 'non_veg'],
  ['Pollo Asado', 'non_veg'],
  ['Poulet Rôti', 'non_veg'],
  ['Pescado a la Plancha', 'non_veg'],
  ['Gambas al Ajillo', 'non_veg'],
  ['Tacos de Camarones', 'non_veg'],
  ['Crevettes à l’ail', 'non_veg'],
  ['Huevos Rancheros', 'egg'],
  ['Œufs Brouillés', 'egg'],
  ['Bœuf Bourguignon', 'non_veg'],
  ['Carne Asada Burrito', 'non_veg'],
  ['Spaghetti alla Carbonara', 'non_veg'],
  ['Penne Arrabbiata', 'veg'],
  // baked goods: egg is common, so flavours alone do not vouch for them
  ['Chocolate Truffle Pastry', 'unknown'],
  ['Red Velvet Cake 1 Kg', 'unknown'],
  ['Walnut Brownie', 'unknown'],
  ['Veg Puff', 'veg'],
  // nothing to go on
  ['Chef Special', 'unknown'],
  ['Family Feast Bucket', 'unknown'],
  ['Hyderabadi Biryani', 'unknown'],
];

t.test('dietOf: table', async (t) => {
  t.ok(DIET_CASES.length >= 100, `${DIET_CASES.length} cases`);
  for (const [text, want] of DIET_CASES) t.equal(dietOf(lex, text).value, want, text);
});

t.test('dietOf: evidence and support explain the answer', async (t) => {
  const seekh = dietOf(lex, 'Veg Seekh Kebab');
  t.same(seekh.evidence, ['veg seekh', 'veg']);
  t.equal(seekh.support, 'stated', 'a veg marker states the diet');
  const eggChicken = dietOf(lex, 'Egg Chicken Roll');
  t.same(eggChicken.evidence, ['egg', 'chicken']);
  const byDefault = dietOf(lex, 'Seekh Kebab');
  t.equal(byDefault.value, 'non_veg');
  t.equal(byDefault.support, 'implied', 'a meat-by-default dish word implies the meat');
  t.equal(dietOf(lex, 'Mutton Seekh Kebab').support, 'stated', 'a named meat states it');
  t.equal(dietOf(lex, 'Egg Curry').support, 'stated');
  t.same(dietOf(lex, 'Drumstick Sambar').evidence, ['drumstick sambar']);
  t.same(dietOf(lex, 'Eggless Chocolate Truffle Cake 500g').evidence, ['eggless']);
  const unknown = dietOf(lex, 'Chef Special');
  t.equal(unknown.support, 'none');
  t.same(unknown.evidence, []);
  t.equal(dietOf(lex, 'Aloo Gobi').support, 'implied', 'veg ingredients imply veg');
  t.equal(dietOf(lex, 'Pure Veg Thali').support, 'stated', 'an explicit veg marker states it');
});

t.test('dietOf: a veg marker turns only the meat it qualifies', async (t) => {
  // adjacent marker → veg copy; the same marker in another part of a combo does not reach the meat
  t.equal(dietOf(lex, 'Veg Chicken').value, 'veg');
  t.equal(dietOf(lex, 'Veg + Chicken').value, 'non_veg');
  t.equal(dietOf(lex, 'Veg Burger, Chicken Wings').value, 'non_veg');
  // a substitute (paneer, mushroom) undoes a default word but never a named meat
  t.equal(dietOf(lex, 'Paneer Seekh').value, 'veg');
  t.equal(dietOf(lex, 'Paneer Chicken Seekh').value, 'non_veg');
});

// ---------------------------------------------------------------------------------------------------------------
// proteinOf

const PROTEIN_CASES: readonly (readonly [string, Protein | null])[] = [
  ['Paneer Tikka', 'paneer'],
  ['Chicken Tikka', 'chicken'],
  ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'chicken'],
  ['Mutton Biryani', 'mutton'],
  ['Lamb Rogan Josh', 'lamb'],
  ['Fish Curry', 'fish'],
  ['Prawn Curry', 'prawn'],
  ['Crab Masala', 'crab'],
  ['Lobster Thermidor', 'lobster'],
  ['Squid Rings', 'squid'],
  ['Calamari Fritti', 'squid'],
  ['Seafood Platter', 'seafood'],
  ['Egg Curry', 'egg'],
  ['Masala Omelette', 'egg'],
  ['Soya Chaap', 'soya'],
  ['Mushroom Masala', 'mushroom'],
  ['Tofu Pad Thai', 'tofu'],
  ['Pork Belly Bao', 'pork'],
  ['Beef Steak', 'beef'],
  ['Roast Duck', 'duck'],
  ['Turkey Club Sandwich', 'turkey'],
  ['Chicken 65', 'chicken'],
  ['Gobi 65', null],
  ['Paneer 65', 'paneer'],
  ['Mushroom 65', 'mushroom'],
  ['Baby Corn 65', null],
  ['Veg Seekh Kebab', null],
  ['Seekh Kebab', 'mutton'],
  ['Chicken Seekh Kebab', 'chicken'],
  ['Mutton Seekh Kebab', 'mutton'],
  ['Keema Pav', 'mutton'],
  ['Chicken Keema', 'chicken'],
  ['Keema Chicken', 'chicken'],
  ['Soya Keema', 'soya'],
  ['Mushroom Keema', 'mushroom'],
  ['Aloo Keema', 'mutton'],
  ['Galouti Kebab', 'mutton'],
  ['Nalli Nihari', 'mutton'],
  ['Rogan Josh', 'mutton'],
  ['Shami Kebab', 'mutton'],
  ['Hyderabadi Haleem', 'mutton'],
  ['Chicken Haleem', 'chicken'],
  ['Pepperoni Pizza', 'pork'],
  ['Chicken Pepperoni Pizza', 'chicken'],
  ['Veg Pepperoni Pizza', null],
  ['Salami Sandwich', 'pork'],
  ['Bacon Burger', 'pork'],
  ['Chicken Sausage Roll', 'chicken'],
  ['Hot Wings (6 Pcs)', 'chicken'],
  ['Chicken Lollipop', 'chicken'],
  ['Veg Lollipop', null],
  ['Tangdi Kebab', 'chicken'],
  ['Drumsticks (4 Pcs)', 'chicken'],
  ['Chicken Drumstick', 'chicken'],
  ['Drumstick Sambar', null],
  ['Murungakkai Sambar', null],
  ['Cauliflower Wings', null],
  ['Classic Zinger Burger', 'chicken'],
  ['Chicken Shawarma Roll', 'chicken'],
  ['Shawarma Plate', 'chicken'],
  ['Paneer Shawarma', 'paneer'],
  ['Falafel Doner Wrap', null],
  ['Soya Chicken', 'soya'],
  ['Mock Chicken Tikka', 'soya'],
  ['Mock Meat Biryani', 'soya'],
  ['Chicken-style Nuggets', null],
  ['Egg Chicken Roll', 'chicken'],
  ['Chicken Egg Fried Rice', 'chicken'],
  ['Paneer Egg Roll', 'egg'],
  ['Mushroom Chicken', 'chicken'],
  ['Chicken Mushroom Pizza', 'chicken'],
  ['Paneer Mushroom Masala', 'paneer'],
  ['Fish & Prawn Platter', 'seafood'],
  ['Prawn and Crab Curry', 'seafood'],
  ['Chicken and Prawn Fried Rice', 'chicken'],
  ['Mutton Chaap', 'mutton'],
  ['Eggless Chocolate Cake', null],
  ['Egg-free Mayo Sandwich', null],
  ['Eggplant Parmigiana', null],
  ['Oyster Mushroom Stir Fry', 'mushroom'],
  ['Veg in Oyster Sauce', null],
  ['Thai Curry with Fish Sauce', null],
  ['Rajma (Kidney Beans)', null],
  ['Goat Cheese Salad', null],
  ['Bombay Duck Fry', 'fish'],
  ['Murgh Makhani', 'chicken'],
  ['Machli Fry', 'fish'],
  ['Jhinga Masala', 'prawn'],
  ['Chingri Malai Curry', 'prawn'],
  ['Kosha Mangsho', 'mutton'],
  ['Kodi Vepudu', 'chicken'],
  ['Meen Pollichathu', 'fish'],
  ['चिकन टिक्का', 'chicken'],
  ['पनीर टिक्का', 'paneer'],
  ['अंडा करी', 'egg'],
  ['Pollo a la Brasa', 'chicken'],
  ['Poulet Basquaise', 'chicken'],
  ['Gambas al Ajillo', 'prawn'],
  ['Tacos de Pescado', 'fish'],
  ['Carne Asada', 'beef'],
  ['Crevettes Sautées', 'prawn'],
  ['Huevos Rancheros', 'egg'],
  ['Spaghetti Carbonara', 'pork'],
  ['Spaghetti Bolognese', 'beef'],
  ['Aloo Gobi', null],
  ['Dal Makhani', null],
  ['Margherita Pizza', null],
  ['Cheese Pizza', null],
  ['Veg Hakka Noodles', null],
  ['Chicken Tikka Masala', 'chicken'],
];

t.test('proteinOf: table', async (t) => {
  t.ok(PROTEIN_CASES.length >= 100, `${PROTEIN_CASES.length} cases`);
  for (const [text, want] of PROTEIN_CASES) t.equal(proteinOf(lex, text).value, want, text);
});

t.test('proteinOf: named proteins are surer than implied ones', async (t) => {
  const implied = proteinOf(lex, 'Keema Pav');
  const named = proteinOf(lex, 'Mutton Keema Pav');
  t.equal(implied.value, 'mutton');
  t.equal(named.value, 'mutton');
  t.equal(implied.support, 'implied');
  t.equal(named.support, 'stated');
  t.same(proteinOf(lex, 'Chicken Keema').evidence, ['chicken']);
  t.same(proteinOf(lex, 'Fish & Prawn Platter').evidence, ['fish', 'prawn']);
  t.equal(proteinOf(lex, 'Aloo Gobi').support, 'none');
  t.equal(proteinOf(lex, 'Chicken and Mutton Biryani').support, 'implied', 'two meats: the first leads, neither is stated');
  t.equal(proteinOf(lex, 'Chicken Biryani').support, 'stated');
  t.equal(proteinOf(lex, 'Fish & Prawn Platter').value, 'seafood');
  t.equal(proteinOf(lex, 'Fish & Prawn Platter').support, 'implied', 'several sea proteins: seafood, no one stated');
  t.equal(proteinOf(lex, 'Paneer Tikka').support, 'stated', 'a vegetarian protein named');
});

// ---------------------------------------------------------------------------------------------------------------
// categoryOf

const COURSE_CASES: readonly (readonly [string, Course])[] = [
  ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'main'],
  ['Veg Pulao', 'main'],
  ['Paneer Butter Masala', 'main'],
  ['Chicken Tikka Masala', 'main'],
  ['Dal Makhani', 'main'],
  ['Rajma Chawal', 'main'],
  ['Veg Thali', 'main'],
  ['Mini Meal', 'main'],
  ['Burger Combo', 'main'],
  ['Chicken Fried Rice', 'main'],
  ['Hakka Noodles', 'main'],
  ['Margherita Pizza', 'main'],
  ['Penne Alfredo Pasta', 'main'],
  ['Crispy Chicken Burger', 'main'],
  ['Club Sandwich', 'main'],
  ['Chicken Kathi Roll', 'main'],
  ['Chicken Shawarma', 'main'],
  ['Burrito Bowl', 'main'],
  ['Chicken Tacos', 'main'],
  ['Salmon Sushi Roll', 'main'],
  ['Tonkotsu Ramen', 'main'],
  ['Pad Thai', 'main'],
  ['Masala Dosa', 'main'],
  ['Idli Sambar', 'main'],
  ['Pav Bhaji', 'main'],
  ['Chole Bhature', 'main'],
  ['Mac & Cheese', 'main'],
  ['Fish and Chips', 'main'],
  ['Chilli Chicken Gravy', 'main'],
  ['Veg Manchurian Gravy', 'main'],
  ['Chicken 65 Biryani', 'main'],
  ['Butter Chicken', 'main'],
  ['Burger + Fries + Coke', 'main'],
  ['Chicken Biryani with Raita', 'main'],
  ['Family Feast Bucket', 'main'],
  ['Pot Pie', 'main'],
  ['Paneer Tikka', 'side'],
  ['Chicken Tikka', 'side'],
  ['Seekh Kebab', 'side'],
  ['Chicken 65', 'side'],
  ['Gobi 65', 'side'],
  ['Chicken Lollipop', 'side'],
  ['Chilli Paneer', 'side'],
  ['Chilli Chicken Dry', 'side'],
  ['Veg Spring Roll', 'side'],
  ['Steamed Momos', 'side'],
  ['Hot Wings (6 Pcs)', 'side'],
  ['Chicken Nuggets 9 Pc', 'side'],
  ['French Fries', 'side'],
  ['Peri Peri Fries', 'side'],
  ['Garlic Bread', 'side'],
  ['Cheesy Garlic Bread', 'side'],
  ['Onion Rings', 'side'],
  ['Tomato Soup', 'side'],
  ['Hot and Sour Soup', 'side'],
  ['Greek Salad', 'side'],
  ['Boondi Raita', 'side'],
  ['Masala Papad', 'side'],
  ['Samosa (2 Pcs)', 'side'],
  ['Vada Pav', 'side'],
  ['Pani Puri', 'side'],
  ['Cheesy Dip', 'side'],
  ['Extra Cheese', 'side'],
  ['Fish Fry', 'side'],
  ['Hummus', 'side'],
  ['Fries + Coke', 'side'],
  ['Drumstick Sambar', 'side'],
  ['Butter Naan', 'bread'],
  ['Garlic Naan', 'bread'],
  ['Tandoori Roti', 'bread'],
  ['Rumali Roti', 'bread'],
  ['Aloo Paratha', 'bread'],
  ['Lachha Paratha', 'bread'],
  ['Amritsari Kulcha', 'bread'],
  ['Kerala Parotta', 'bread'],
  ['Pav (2 Pcs)', 'bread'],
  ['Butter Croissant', 'bread'],
  ['Pita Bread', 'bread'],
  ['Gulab Jamun', 'dessert'],
  ['Rasmalai (2 Pcs)', 'dessert'],
  ['Gajar Halwa', 'dessert'],
  ['Malai Kulfi', 'dessert'],
  ['Vanilla Ice Cream', 'dessert'],
  ['Brownie Sundae', 'dessert'],
  ['Chocolate Brownie with Ice Cream', 'dessert'],
  ['Bread Pudding', 'dessert'],
  ['Bread Halwa', 'dessert'],
  ['Tiramisu', 'dessert'],
  ['Eggless Chocolate Truffle Cake 500g', 'dessert'],
  ['Blueberry Cheesecake', 'dessert'],
  ['Swiss Roll', 'dessert'],
  ['Kunafa', 'dessert'],
  ['Mango Lassi', 'beverage'],
  ['Masala Chai', 'beverage'],
  ['Cold Coffee', 'beverage'],
  ['Cappuccino', 'beverage'],
  ['Chocolate Shake', 'beverage'],
  ['Ice Cream Shake', 'beverage'],
  ['Virgin Mojito', 'beverage'],
  ['Fresh Lime Soda', 'beverage'],
  ['Coke 500ml', 'beverage'],
  ['Thums Up 750 ml', 'beverage'],
  ['Bisleri 1L', 'beverage'],
  ['Red Bull 250 ml', 'beverage'],
  ['Badam Milk', 'beverage'],
  ['Filter Coffee', 'beverage'],
  ['Sweet Lassi', 'beverage'],
  ['Milk Cake', 'dessert'],
  ['चिकन बिरयानी', 'main'],
  ['पनीर टिक्का', 'side'],
  ['बटर नान', 'bread'],
  ['गुलाब जामुन', 'dessert'],
  ['मसाला चाय', 'beverage'],
];

t.test('categoryOf: table', async (t) => {
  t.ok(COURSE_CASES.length >= 100, `${COURSE_CASES.length} cases`);
  for (const [text, want] of COURSE_CASES) t.equal(categoryOf(lex, text).value, want, text);
});

t.test('categoryOf: the head word decides, and no cue is a main by default', async (t) => {
  t.same(categoryOf(lex, 'Chicken Tikka Masala').evidence, ['tikka', 'masala']);
  const none = categoryOf(lex, 'Chef Special');
  t.equal(none.value, 'main');
  t.equal(none.source, 'default');
  t.same(none.evidence, []);
  t.equal(none.named, false, 'no course word: main by default, not named');
  t.equal(categoryOf(lex, 'Burger + Fries + Coke').named, true, 'a combo with a main names it');
  t.equal(categoryOf(lex, 'Mango Lassi').named, true);
  t.equal(categoryOf(lex, 'Mango Lassi').source, 'words_agreed');
  t.equal(categoryOf(lex, 'Chicken Tikka Masala').source, 'words_mixed');
  t.equal(categoryOf(lex, 'Burger + Fries + Coke').source, 'combo');
  t.equal(categoryOf(lex, 'Mango Lassi').agreed, true, 'every course word of the part says beverage');
  t.equal(categoryOf(lex, 'Chicken Tikka Masala').agreed, false, 'tikka (a side) and masala (a main) disagree');
  t.equal(categoryOf(lex, 'Burger + Fries + Coke').agreed, false, "a combo's main is not agreed");
  t.equal(none.agreed, false, 'nor is the default');
  t.same(categoryOf(lex, 'Burger + Fries + Coke').evidence, ['burger', 'fries', 'coke']);
});

t.test('categoryOf: a dish no course word names, joined to a bread or a side, is the main they come with', async (t) => {
  for (const text of ['Shahi Paneer with 4 Tawa Roti', 'Afghani Malai Chaap + 1 Paratha', 'Paneer Royale + Med Fries + Chocolate Thick Shake']) {
    const cue = categoryOf(lex, text);
    t.equal(cue.value, 'main', text);
    t.equal(cue.named, true, `${text}: named, by its accompaniments`);
  }
  t.same(categoryOf(lex, 'Shahi Paneer with 4 Tawa Roti').comesWith, ['bread'], 'the rotis come with it');
  t.same([...categoryOf(lex, 'Paneer Royale + Med Fries + Chocolate Thick Shake').comesWith].sort(), ['beverage', 'side']);
  t.same(categoryOf(lex, 'Burger + Fries + Coke').comesWith, ['side', 'beverage'], 'a combo with a named main brings its other parts');
  t.same(categoryOf(lex, 'Garlic Naan').comesWith, [], 'one part brings nothing else');
  t.same(categoryOf(lex, 'Chocolate Shake + Fries').comesWith, [], 'not read as a combo: nothing else is counted');
  // Not a lead dish: one word (a flavour), or a lead that names its own course, or only a drink joined to it.
  t.equal(categoryOf(lex, 'Oreo (Shake)').value, 'beverage', 'a one-word lead is a flavour');
  t.equal(categoryOf(lex, 'Chocolate Shake + Fries').value, 'beverage', 'the lead names its course');
  t.equal(categoryOf(lex, 'Paneer Tikka with Mint Chutney').value, 'side', 'a starter with its dip stays a starter');
  t.equal(categoryOf(lex, 'Garlic Naan').value, 'bread', 'one part: its course word decides');
});

// ---------------------------------------------------------------------------------------------------------------
// cuisineCue

const CUISINE_CASES: readonly (readonly [string, Cuisine | null])[] = [
  ['Paneer Butter Masala', 'North Indian'],
  ['Dal Makhani', 'North Indian'],
  ['Chole Bhature', 'North Indian'],
  ['Butter Chicken', 'North Indian'],
  ['Paneer Tikka', 'North Indian'],
  ['Kadai Paneer', 'North Indian'],
  ['Butter Naan', 'North Indian'],
  ['Aloo Paratha', 'North Indian'],
  ['Pav Bhaji', 'North Indian'],
  ['Vada Pav', 'North Indian'],
  ['Pani Puri', 'North Indian'],
  ['Paneer Tikka Wrap', 'North Indian'],
  ['Chicken Kathi Roll', 'North Indian'],
  ['Rajma Chawal', 'North Indian'],
  ['Masala Dosa', 'South Indian'],
  ['Mysore Masala Dosa', 'South Indian'],
  ['Idli Sambar', 'South Indian'],
  ['Medu Vada', 'South Indian'],
  ['Onion Uttapam', 'South Indian'],
  ['Appam with Stew', 'South Indian'],
  ['Chicken Chettinad', 'South Indian'],
  ['Kerala Parotta', 'South Indian'],
  ['Malabar Paratha', 'South Indian'],
  ['Andhra Chicken Curry', 'South Indian'],
  ['Schezwan Dosa', 'South Indian'],
  ['Drumstick Sambar', 'South Indian'],
  ['Gobi 65', 'South Indian'],
  ['Gobi Manchurian', 'Chinese'],
  ['Veg Hakka Noodles', 'Chinese'],
  ['Schezwan Fried Rice', 'Chinese'],
  ['Chilli Paneer', 'Chinese'],
  ['Chilli Chicken', 'Chinese'],
  ['Veg Manchow Soup', 'Chinese'],
  ['Hot and Sour Soup', 'Chinese'],
  ['American Chopsuey', 'Chinese'],
  ['Steamed Momos', 'Chinese'],
  ['Veg Spring Roll', 'Chinese'],
  ['Honey Chilli Potato', 'Chinese'],
  ['Margherita Pizza', 'Italian'],
  ['Tandoori Paneer Pizza', 'Italian'],
  ['Butter Chicken Pizza', 'Italian'],
  ['Penne Arrabbiata', 'Italian'],
  ['Spaghetti Carbonara', 'Italian'],
  ['Mushroom Risotto', 'Italian'],
  ['Garlic Bread', 'Italian'],
  ['Bruschetta', 'Italian'],
  ['Lasagne', 'Italian'],
  ['Pad Thai', 'Thai'],
  ['Tom Yum Soup', 'Thai'],
  ['Thai Green Curry', 'Thai'],
  ['Massaman Curry', 'Thai'],
  ['Salmon Sushi', 'Japanese'],
  ['Tonkotsu Ramen', 'Japanese'],
  ['Chicken Katsu Curry', 'Japanese'],
  ['Prawn Tempura', 'Japanese'],
  ['Chicken Tacos', 'Mexican'],
  ['Veg Burrito Bowl', 'Mexican'],
  ['Cheese Quesadilla', 'Mexican'],
  ['Loaded Nachos', 'Mexican'],
  ['Chicken Shawarma', 'Middle Eastern'],
  ['Chicken Shawarma Roll', 'Middle Eastern'],
  ['Hummus with Pita', 'Middle Eastern'],
  ['Falafel Wrap', 'Middle Eastern'],
  ['Chicken Mandi', 'Middle Eastern'],
  ['Kimchi Fried Rice', 'Korean'],
  ['Bibimbap', 'Korean'],
  ['Korean Fried Chicken', 'Korean'],
  ['Tteokbokki', 'Korean'],
  ['Crispy Chicken Burger', 'American'],
  ['Butter Chicken Burger', 'American'],
  ['Peri Peri Fries', 'American'],
  ['Hot Wings', 'American'],
  ['Mac & Cheese', 'American'],
  ['Chicken Nuggets', 'American'],
  ['Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'Mughlai'],
  ['Mutton Seekh Kebab', 'Mughlai'],
  ['Chicken Korma', 'Mughlai'],
  ['Nalli Nihari', 'Mughlai'],
  ['Hyderabadi Haleem', 'Mughlai'],
  ['Veg Sizzler', 'Continental'],
  ['Chicken Stroganoff', 'Continental'],
  ['Fish and Chips', 'Continental'],
  ['Veg Au Gratin', 'Continental'],
  ['Pho Bo', 'Vietnamese'],
  ['Chicken Banh Mi', 'Vietnamese'],
  ['Greek Salad', 'Mediterranean'],
  ['Chicken Souvlaki', 'Mediterranean'],
  ['Moussaka', 'Mediterranean'],
  ['Chocolate Croissant', 'Bakery'],
  ['Eggless Chocolate Truffle Cake 500g', 'Bakery'],
  ['Blueberry Muffin', 'Bakery'],
  ['Veg Puff', 'Bakery'],
  ['Mango Lassi', 'Beverages'],
  ['Cold Coffee', 'Beverages'],
  ['Chocolate Shake', 'Beverages'],
  ['Coke 500ml', 'Beverages'],
  ['Virgin Mojito', 'Beverages'],
  ['Prawn Laksa', 'SE Asian'],
  ['Nasi Goreng', 'SE Asian'],
  ['Chicken Khow Suey', 'SE Asian'],
  ['Chicken Satay', 'SE Asian'],
  ['Paella Valenciana', 'European'],
  ['Chicken Schnitzel', 'European'],
  ['Beef Goulash', 'European'],
  ['Gulab Jamun', 'Desserts'],
  ['Brownie Sundae', 'Desserts'],
  ['Vanilla Ice Cream', 'Desserts'],
  ['Malai Kulfi', 'Desserts'],
  ['Tiramisu', 'Desserts'],
  ['Kunafa', 'Desserts'],
  ['Burger + Coke', 'American'],
  ['Paneer and Onion Pizza', 'Italian'],
  ['Mac and Cheese Pizza', 'Italian'],
  ['Biryani with Coke', 'Mughlai'],
  ['पनीर टिक्का', 'North Indian'],
  ['चिकन बिरयानी', 'Mughlai'],
  ['मसाला डोसा', 'South Indian'],
  ['Chef Special', null],
  ['Grilled Sandwich', 'American'],
];

t.test('cuisineCue: table', async (t) => {
  t.ok(CUISINE_CASES.length >= 100, `${CUISINE_CASES.length} cases`);
  for (const [text, want] of CUISINE_CASES) t.equal(cuisineCue(lex, text).value, want, text);
  const covered = new Set(CUISINE_CASES.map(([, c]) => c));
  for (const label of CUISINE_LABELS) t.ok(covered.has(label), `a case for ${label}`);
});

t.test('cuisineCue: strong beats weak, the last strong cue is the dish form', async (t) => {
  const pizza = cuisineCue(lex, 'Tandoori Paneer Pizza');
  t.same(pizza.evidence, ['tandoori', 'paneer', 'pizza']);
  t.ok(pizza.strong && pizza.agreeing, 'weak cues do not unsettle a single strong cue');
  const weak = cuisineCue(lex, 'Paneer Tikka');
  t.ok(!weak.strong && weak.agreeing);
  const fusion = cuisineCue(lex, 'Schezwan Dosa');
  t.equal(fusion.value, 'South Indian');
  t.ok(fusion.strong && !fusion.agreeing, 'two strong cues of different cuisines disagree');
  t.equal(cuisineCue(lex, 'Chef Special').value, null);
});

t.test('flavourReadingOf: a flavour word after a negator is what the item is not', async (t) => {
  const negators = new Set(['non', 'less', 'no', 'not', 'without']);
  const read = (text: string) => {
    const r = flavourReadingOf(lex, text, negators);
    return [[...r.tags].sort(), [...r.negated].sort()];
  };
  t.same(read('Veg Momo in Tomato Garlic Sauce (Non Spicy)'), [[], ['spicy']]);
  t.same(read('Paneer Tikka (Less Spicy)'), [['grilled'], ['spicy']]);
  t.same(read('Spicy Paneer'), [['spicy'], []], 'no negator: the tag stands');
  t.same(read('Chatpata Paneer Momo (Non Spicy)')[1], ['spicy'], 'said outright, it wins over a word that suggests it');
  t.notOk(read('Chatpata Paneer Momo (Non Spicy)')[0]!.includes('spicy'));
  t.same(read('Less Sweet Lassi')[0], ['cold_drink'], 'a negator turns round its next word, not the dish a phrase names');
  t.same(read('Non Veg Spicy Platter'), [['spicy'], []], 'the negator must stand right before the flavour word');
  t.same(flavourReadingOf(lex, 'Paneer (Non Spicy)', new Set()).negated, new Set(), 'no negators, nothing turned round');
});

// ---------------------------------------------------------------------------------------------------------------
// Words, lexicons and loading

t.test('tokenizeMenuText: folding, glued digits and parts', async (t) => {
  t.same(tokenize("Domino's Crème Brûlée").map((w) => w.word), ['dominos', 'creme', 'brulee']);
  t.same(tokenize('2Pc Wings+4Pc Boneless').map((w) => w.word), ['2', 'pc', 'wings', '4', 'pc', 'boneless']);
  const parts = tokenize('Burger + Fries with Coke (Large)');
  t.same(parts.map((w) => w.seg), [0, 1, 2, 2, 3]);
  t.same(parts.map((w) => w.dish), [0, 1, 2, 2, 3]);
  const joined = tokenize('Paneer and Onion Pizza');
  t.same(joined.map((w) => w.seg), [0, 1, 1, 1], '"and" ends a part for diet and course');
  t.same(joined.map((w) => w.dish), [0, 0, 0, 0], 'but not a dish for cuisine');
  t.same(parts.map((w) => w.hardBreakBefore), [false, true, false, false, true]);
  t.same(tokenize('Mac & Cheese').map((w) => w.word), ['mac', 'and', 'cheese']);
  t.same(tokenize('Nuggets - 2 Pc').map((w) => w.seg), [0, 1, 1]);
  t.same(tokenize('Egg-free').map((w) => w.seg), [0, 0], 'a hyphen joins words');
  t.same(tokenize('मुर्ग़ मखनी').map((w) => w.word).length, 2);
  t.same(tokenize('wings')[0]!.singulars, ['wing']);
  t.same(tokenize('potatoes')[0]!.singulars, ['potatoe', 'potato']);
  t.same(tokenize('boneless')[0]!.singulars, [], '-ss words are not plurals');
});

t.test('menuTextCues agrees with the four single calls', async (t) => {
  for (const text of ['Veg Seekh Kebab', 'Chicken Dum Biryani [Serves 2] ₹299 Bestseller', 'Eggless Chocolate Truffle Cake 500g', 'Drumstick Sambar']) {
    const all = menuTextCues(lex, text);
    t.same(all.diet, dietOf(lex, text), `diet ${text}`);
    t.same(all.protein, proteinOf(lex, text), `protein ${text}`);
    t.same(all.course, categoryOf(lex, text), `course ${text}`);
    t.same(all.cuisine, cuisineCue(lex, text), `cuisine ${text}`);
  }
});

t.test('the lexicons are big enough to be useful', async (t) => {
  t.ok(lex.diet.size >= 300, `diet ${lex.diet.size}`);
  t.ok(lex.protein.size >= 200, `protein ${lex.protein.size}`);
  t.ok(lex.course.size >= 300, `category ${lex.course.size}`);
  t.ok(lex.cuisine.size >= 400, `cuisine cues ${lex.cuisine.size}`);
});

function knowledgeCopyWith(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cues-'));
  mkdirSync(join(dir, 'lexicon'));
  for (const f of ['diet.tsv', 'protein.tsv', 'category.tsv', 'cuisine_cues.tsv', 'flavours.tsv', 'proteins.tsv']) {
    const text = readFileSync(join(KNOWLEDGE_DIR, 'lexicon', f), 'utf8');
    writeFileSync(join(dir, 'lexicon', f), f === file ? edit(text) : text);
  }
  return dir;
}

t.test('loadCueLexicons rejects broken knowledge with file:line', async (t) => {
  t.doesNotThrow(() => loadCueLexicons(knowledgeCopyWith('diet.tsv', (s) => s), lex.boundaries));
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('diet.tsv', (s) => s + '\nchicken\tveg\tduplicate\n'), lex.boundaries),
    /diet\.tsv:\d+: keyword "chicken" repeats/,
  );
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('protein.tsv', (s) => s + '\nyak\tyak\t\n'), lex.boundaries),
    /protein\.tsv:\d+: protein "yak" is not one of/,
  );
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('cuisine_cues.tsv', (s) => s + '\nhaggis\tScottish\tstrong\n'), lex.boundaries),
    /cuisine_cues\.tsv:\d+: cuisine "Scottish"/,
  );
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('cuisine_cues.tsv', (s) => s + '\nhaggis\tEuropean\tmedium\n'), lex.boundaries),
    /strength "medium"/,
  );
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('category.tsv', (s) => s.replace('keyword\tcourse\tnote', 'keyword\tcourse')), lex.boundaries),
    /header must be/,
  );
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('category.tsv', (s) => s + '\nfoo (bar)\tmain\t\n'), lex.boundaries),
    /contains a part break/,
  );
  // A keyword written with different spacing or accents is the same keyword.
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('diet.tsv', (s) => s + '\nCHICKEN\tnon_veg\t\n'), lex.boundaries),
    /repeats/,
  );
  // flavours.tsv: a keyword may carry several tags, one row each, but not the same tag twice or an unknown tag.
  t.doesNotThrow(() => loadCueLexicons(knowledgeCopyWith('flavours.tsv', (s) => s + '\nzzberry\tfruity\t-\nzzberry\tsweet\t-\n'), lex.boundaries));
  t.throws(
    () => loadCueLexicons(knowledgeCopyWith('flavours.tsv', (s) => s + '\nzzberry\tfruity\t-\nZZBerry\tfruity\t-\n'), lex.boundaries),
    /flavours\.tsv:\d+: "ZZBerry" is already tagged fruity/,
  );
  t.throws(() => loadCueLexicons(knowledgeCopyWith('flavours.tsv', (s) => s + '\nzzberry\tberryish\t-\n'), lex.boundaries), /tag "berryish" is not one of/);
  t.throws(() => loadCueLexicons(knowledgeCopyWith('flavours.tsv', (s) => s + '\nzzberry\tfruity\t-\nzzberry\t-\t-\n'), lex.boundaries), /stop phrase and a tagged keyword/);
});

t.test("flavourTagsOf: the tags an item's own words give it", async (t) => {
  const { flavourTagsOf } = await import('../src/core/knowledge/cues.js');
  const has = (text: string, tags: string[]) => t.ok(tags.every((x) => flavourTagsOf(lex, text).includes(x as never)), `${text} is ${tags.join(', ')} (got ${flavourTagsOf(lex, text).join(', ')})`);
  has('Black Current Shake', ['fruity', 'cold_drink']);
  has('Coffee Walnut Ice Cream 100ml', ['nutty']);
  has('Schezwan Margherita', ['spicy']);
  has('Death by Chocolate', ['chocolate']);
  has('Kesar Pista Kulfi', ['nutty']);
  // Longest keyword first: the cream of "ice cream" is not a creamy sauce.
  t.notOk(flavourTagsOf(lex, 'Vanilla Ice Cream').includes('creamy'), 'ice cream is not creamy');
  t.same(flavourTagsOf(lex, 'Butter Naan'), [], 'butter is not a flavour word');
  t.same(flavourTagsOf(lex, 'Hot Dog'), [], 'hot alone is not spicy');
  t.notOk(flavourTagsOf(lex, 'Cottage Cheese Tikka').includes('cheesy'), 'a stop phrase consumes its words: cottage cheese is paneer');
  // A menu's own labels: the small plate beside its thalis, its kids' items, its healthy bowl.
  has('Palak Paneer - Light Meal', ['light']);
  has('Kids Cheese Margherita Combo', ['kids']);
  has('Millet Dal Khichdi Bowl - Healthy', ['healthy']);
  t.notOk(flavourTagsOf(lex, 'Chicken De-light Pizza').includes('light'), 'a light alone is no light meal');
});

t.test('dietMarkers: egg-free words and veg / non-veg markers come from the diet lexicon, in any of its languages', async (t) => {
  const { dietMarkers } = await import('../src/core/knowledge/cues.js');
  t.same(dietMarkers(lex, 'Eggless Opium Cake'), { eggFree: true, vegOrNonVeg: false, unmarkedWords: ['eggless', 'opium', 'cake'], markerWords: [] });
  t.equal(dietMarkers(lex, 'Non Veg Singapore Noodles').vegOrNonVeg, true);
  t.same(dietMarkers(lex, 'Non Veg Singapore Noodles').unmarkedWords, ['singapore', 'noodles'], 'the whole marker is taken out');
  t.same(dietMarkers(lex, 'Non Veg Singapore Noodles').markerWords, ['non', 'veg'], 'and listed');
  t.equal(dietMarkers(lex, 'Pure Veg Thali').vegOrNonVeg, true);
  t.equal(dietMarkers(lex, 'Hamburguesa Vegetariana').vegOrNonVeg, true);
  t.equal(dietMarkers(lex, 'Soya Chaap').vegOrNonVeg, false, 'soya names what the dish is made of, not which twin it is');
  t.equal(dietMarkers(lex, 'Chicken Tikka').vegOrNonVeg, false, 'a meat word is not a marker');
  t.equal(dietMarkers(lex, 'Cake without egg').eggFree, true);
});
