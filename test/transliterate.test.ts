import t from 'tap';
import { loadKnowledge } from '../src/core/knowledge/index.js';
import {
  alignDevanagariAlias as alignWith,
  buildDevanagariDictionary as buildDictionary,
  hasDevanagari,
  soundKey,
  soundsLike as soundsLikeWith,
  SoundKeys,
  transliterateDevanagari,
  transliterateWord as transliterateWith,
} from '../src/core/knowledge/transliterate.js';

const knowledge = loadKnowledge();
const clean = (text: string) => knowledge.cleaner.clean(text);
const functionWords = knowledge.words.devanagariFunctionWords;
const transliterateWord = (word: string) => transliterateWith(word, functionWords);
const soundsLike = (deva: string, latin: string) => soundsLikeWith(deva, latin, functionWords);
const alignDevanagariAlias = (alias: string, latinNames: readonly string[]) => alignWith(alias, latinNames, new SoundKeys(functionWords));
const buildDevanagariDictionary = (entries: { name: string; aliases: readonly string[] }[]) => buildDictionary(entries, functionWords);

/**
 * Expected menu romanisations, lower-case. Each word lists the spellings menus really print, separated by "/";
 * "_" stands for a space inside one spelling (चाउमीन → "chow mein").
 */
type Expected = string;

function accepts(expected: Expected, got: string): boolean {
  const want = expected.split(' ').map((w) => w.split('/').map((alt) => alt.replace(/_/g, ' ')));
  // Try to consume `got` word by word with one of the spellings of each expected word.
  const walk = (i: number, rest: string): boolean => {
    if (i === want.length) return rest === '';
    return want[i]!.some((alt) => (rest === alt || rest.startsWith(`${alt} `)) && walk(i + 1, rest.slice(alt.length).trimStart()));
  };
  return walk(0, got);
}

/** Dish names as Hindi menus write them, and what an English-script menu prints for them. */
const DISH_NAMES: [string, Expected][] = [
  ['पनीर टिक्का', 'paneer tikka'],
  ['दाल मखनी', 'dal/daal makhani'],
  ['छोले भटूरे', 'chole bhature'],
  ['बटर चिकन', 'butter chicken'],
  ['चिकन बिरयानी', 'chicken biryani'],
  ['मटन बिरयानी', 'mutton biryani'],
  ['वेज बिरयानी', 'veg biryani'],
  // A nukta the dictionary's spelling lacks (ज़ for ज), precomposed or as a combining dot.
  ['वेज़ बिरयानी', 'veg biryani'],
  ['वेज\u093C पुलाव', 'veg pulao/pulav'],
  ['पनीर बटर मसाला', 'paneer butter masala'],
  ['कढ़ाई पनीर', 'kadai/kadhai paneer'],
  ['शाही पनीर', 'shahi paneer'],
  ['पालक पनीर', 'palak paneer'],
  ['मटर पनीर', 'matar/mutter paneer'],
  ['आलू गोभी', 'aloo/alu gobi/gobhi'],
  ['आलू पराठा', 'aloo paratha'],
  ['गोभी पराठा', 'gobi/gobhi paratha'],
  ['पनीर पराठा', 'paneer paratha'],
  ['मसाला डोसा', 'masala dosa'],
  ['इडली सांभर', 'idli sambar/sambhar'],
  ['मेदु वड़ा', 'medu vada/wada'],
  ['उत्तपम', 'uttapam/uthappam'],
  ['पाव भाजी', 'pav/pao bhaji'],
  ['वड़ा पाव', 'vada/wada pav/pao'],
  ['पानी पूरी', 'pani puri/poori'],
  ['भेल पूरी', 'bhel puri/poori'],
  ['सेव पूरी', 'sev puri/poori'],
  ['दही पूरी', 'dahi puri/poori'],
  ['पापड़ी चाट', 'papdi chaat/chat'],
  ['आलू टिक्की', 'aloo tikki'],
  ['समोसा', 'samosa'],
  ['कचौरी', 'kachori'],
  ['जलेबी', 'jalebi'],
  ['गुलाब जामुन', 'gulab jamun'],
  ['रसगुल्ला', 'rasgulla'],
  ['रसमलाई', 'rasmalai'],
  ['गाजर का हलवा', 'gajar ka halwa'],
  ['खीर', 'kheer'],
  ['कुल्फी', 'kulfi'],
  ['लस्सी', 'lassi'],
  ['मीठी लस्सी', 'meethi/mithi lassi'],
  ['मसाला चाय', 'masala chai'],
  ['अदरक चाय', 'adrak chai'],
  ['नींबू पानी', 'nimbu/neembu pani'],
  ['जलजीरा', 'jaljeera/jaljira'],
  ['छाछ', 'chaas/chaach/chhachh'],
  ['तंदूरी चिकन', 'tandoori chicken'],
  ['चिकन टिक्का', 'chicken tikka'],
  ['चिकन टिक्का मसाला', 'chicken tikka masala'],
  ['मुर्ग मुसल्लम', 'murg/murgh musallam'],
  ['रोगन जोश', 'rogan/roghan josh'],
  ['कीमा मटर', 'keema/kheema matar/mutter'],
  ['मटन करी', 'mutton curry'],
  ['चिकन करी', 'chicken curry'],
  ['अंडा करी', 'anda/egg curry'],
  ['मछली करी', 'machli/machhli/machhi/fish curry'],
  ['दाल तड़का', 'dal/daal tadka'],
  ['दाल फ्राई', 'dal/daal fry'],
  ['राजमा चावल', 'rajma chawal'],
  ['कढ़ी चावल', 'kadhi chawal'],
  ['जीरा राइस', 'jeera rice'],
  ['वेज पुलाव', 'veg pulao/pulav'],
  ['मटन कोरमा', 'mutton korma'],
  ['नवरतन कोरमा', 'navratan korma'],
  ['मलाई कोफ्ता', 'malai kofta'],
  ['दम आलू', 'dum aloo'],
  ['बैंगन भर्ता', 'baingan/baigan bharta'],
  ['भिंडी मसाला', 'bhindi masala'],
  ['सरसों का साग', 'sarson/sarso ka saag'],
  ['मक्की की रोटी', 'makki ki roti'],
  ['तंदूरी रोटी', 'tandoori roti'],
  ['बटर नान', 'butter naan'],
  ['गार्लिक नान', 'garlic naan'],
  ['लच्छा पराठा', 'lachha/laccha/lachcha paratha'],
  ['रुमाली रोटी', 'rumali roti'],
  ['मिस्सी रोटी', 'missi roti'],
  ['भटूरा', 'bhatura/bhature'],
  ['कुलचा', 'kulcha'],
  ['अमृतसरी कुलचा', 'amritsari kulcha'],
  ['चना मसाला', 'chana masala'],
  ['पिंडी छोले', 'pindi chole'],
  ['हैदराबादी बिरयानी', 'hyderabadi biryani'],
  ['लखनवी बिरयानी', 'lucknowi/lakhnawi/lakhnavi biryani'],
  ['चिकन 65', 'chicken 65'],
  ['चिली पनीर', 'chilli/chili paneer'],
  ['चिली चिकन', 'chilli/chili chicken'],
  ['वेज मंचूरियन', 'veg manchurian'],
  ['गोभी मंचूरियन', 'gobi/gobhi manchurian'],
  ['हक्का नूडल्स', 'hakka noodles'],
  ['वेज फ्राइड राइस', 'veg fried rice'],
  ['चाउमीन', 'chowmein/chaumin/chowmin/chow_mein'],
  ['मोमोज़', 'momos/momo'],
  ['स्प्रिंग रोल', 'spring roll'],
  ['मशरूम मसाला', 'mushroom masala'],
  ['पनीर भुर्जी', 'paneer bhurji'],
  ['अंडा भुर्जी', 'anda/egg bhurji'],
  ['मसाला ऑमलेट', 'masala omelette/omelet/omlet'],
  ['ब्रेड पकोड़ा', 'bread pakoda/pakora'],
  ['प्याज़ पकोड़ा', 'pyaz/pyaaz/onion pakoda/pakora'],
  ['पनीर पकोड़ा', 'paneer pakoda/pakora'],
  ['मिर्ची वड़ा', 'mirchi vada/wada'],
  ['ढोकला', 'dhokla'],
  ['खांडवी', 'khandvi'],
  ['पोहा', 'poha'],
  ['उपमा', 'upma'],
  ['साबूदाना खिचड़ी', 'sabudana/saboodana khichdi'],
  ['दाल खिचड़ी', 'dal/daal khichdi'],
  ['थाली', 'thali'],
  ['दही भल्ला', 'dahi bhalla'],
  ['रायता', 'raita'],
  ['बूंदी रायता', 'boondi raita'],
  ['पापड़', 'papad'],
  ['अचार', 'achar/achaar'],
  ['हरी चटनी', 'hari chutney/chatni'],
  ['मैंगो लस्सी', 'mango lassi'],
  ['कोल्ड कॉफ़ी', 'cold coffee'],
  ['फ़िल्टर कॉफ़ी', 'filter coffee'],
  ['बादाम दूध', 'badam doodh/milk'],
  ['केसर पिस्ता कुल्फी', 'kesar pista kulfi'],
  ['मोतीचूर लड्डू', 'motichoor/motichur laddu/ladoo'],
  ['बेसन लड्डू', 'besan laddu/ladoo'],
  ['काजू कतली', 'kaju katli'],
  ['सोन पापड़ी', 'son/soan papdi'],
  ['पेड़ा', 'peda/pera'],
  ['बर्फी', 'barfi/burfi'],
  ['मालपुआ', 'malpua'],
  ['घेवर', 'ghevar'],
  ['शाही टुकड़ा', 'shahi tukda/tukra'],
  ['फिरनी', 'phirni/firni'],
  ['इमरती', 'imarti'],
  ['मूंग दाल हलवा', 'moong dal halwa'],
  ['सूजी हलवा', 'suji/sooji halwa'],
  ['चिकन सूप', 'chicken soup'],
  ['टमाटर सूप', 'tamatar/tomato soup'],
  ['पिज़्ज़ा', 'pizza'],
  ['बर्गर', 'burger'],
  ['सैंडविच', 'sandwich'],
  ['फ्रेंच फ्राइज़', 'french fries'],
  ['पास्ता', 'pasta'],
  ['चिकन शावरमा', 'chicken shawarma'],
  ['फलाफल', 'falafel'],
  ['हुमस', 'hummus/humus'],
  ['नाचोस', 'nachos'],
  ['ब्राउनी', 'brownie'],
  ['चॉकलेट केक', 'chocolate cake'],
  ['ब्लैक फॉरेस्ट केक', 'black forest cake'],
  ['डोनट', 'donut/doughnut'],
  ['तवा पुलाव', 'tawa pulao/pulav'],
  ['अंडा पराठा', 'anda/egg paratha'],
  ['कीमा पाव', 'keema/kheema pav/pao'],
  ['मिसल पाव', 'misal/missal pav/pao'],
  ['दाबेली', 'dabeli'],
  ['सीख कबाब', 'seekh/sheek kabab/kebab'],
  ['गलौटी कबाब', 'galouti/galauti kabab/kebab'],
  ['शामी कबाब', 'shami kabab/kebab'],
  ['हरा भरा कबाब', 'hara bhara kabab/kebab'],
  ['निहारी', 'nihari'],
  ['हलीम', 'haleem'],
  ['पत्थर का गोश्त', 'pathar/patthar ka gosht'],
  ['बिरयानी', 'biryani'],
  ['पुलाव', 'pulao/pulav'],
  ['पराठा', 'paratha'],
  ['नान', 'naan'],
  ['रोटी', 'roti'],
  ['चावल', 'chawal'],
  ['सांभर', 'sambar/sambhar'],
  ['रसम', 'rasam'],
  ['अप्पम', 'appam'],
  ['पुट्टू', 'puttu'],
  ['बिसी बेले बाथ', 'bisi bele bath/bhath/baath'],
  ['पोंगल', 'pongal'],
  ['लेमन राइस', 'lemon rice'],
  ['दही चावल', 'dahi chawal'],
  ['मैसूर पाक', 'mysore/mysuru pak/pak'],
  ['भुना गोश्त', 'bhuna gosht'],
  ['आलू जीरा', 'aloo jeera'],
  ['जीरा आलू', 'jeera aloo'],
  ['मेथी मलाई मटर', 'methi malai matar/mutter'],
  ['कढ़ी पकोड़ा', 'kadhi pakoda/pakora'],
  ['लौकी कोफ्ता', 'lauki kofta'],
  ['करेला फ्राई', 'karela fry'],
  ['अरबी मसाला', 'arbi masala'],
  ['गट्टे की सब्ज़ी', 'gatte ki sabzi/sabji'],
  ['दाल बाटी चूरमा', 'dal/daal baati/bati churma'],
  ['लिट्टी चोखा', 'litti chokha'],
  ['पनीर दो प्याज़ा', 'paneer do pyaza/pyaaza'],
  ['चिकन चंगेज़ी', 'chicken changezi'],
  ['अफ़गानी चिकन', 'afghani chicken'],
  ['मलाई चाप', 'malai chaap/chap'],
  ['सोया चाप', 'soya chaap/chap'],
  ['तंदूरी मोमोज़', 'tandoori momos/momo'],
  ['चिकन लॉलीपॉप', 'chicken lollipop'],
  ['अंडा रोल', 'anda/egg roll'],
  ['पनीर रोल', 'paneer roll'],
  ['वेज रोल', 'veg roll'],
  ['कुल्हड़ चाय', 'kulhad/kullad chai'],
  ['ठंडाई', 'thandai'],
  ['आम पन्ना', 'aam panna'],
  ['शिकंजी', 'shikanji/shikanjvi'],
  ['गन्ने का रस', 'ganne ka ras'],
  ['बेल शरबत', 'bel sharbat'],
  ['रूह अफ़ज़ा', 'rooh/ruh afza'],
  ['पनीर टिक्का रोल', 'paneer tikka roll'],
  ['चिकन कढ़ाई', 'chicken kadai/kadhai'],
  ['मटन रोगन जोश', 'mutton rogan/roghan josh'],
  ['आलू मटर', 'aloo matar/mutter'],
  ['मटर मशरूम', 'matar/mutter mushroom'],
  ['पालक कोफ्ता', 'palak kofta'],
  ['काजू करी', 'kaju curry'],
  ['पनीर लबाबदार', 'paneer lababdar'],
  ['चिकन मलाई टिक्का', 'chicken malai tikka'],
  ['मटन सीख कबाब', 'mutton seekh kabab/kebab'],
  ['पनीर बिरयानी', 'paneer biryani'],
  ['अंडा बिरयानी', 'anda/egg biryani'],
  ['मशरूम बिरयानी', 'mushroom biryani'],
  ['चिकन फ्राइड राइस', 'chicken fried rice'],
  ['पनीर चिली', 'paneer chilli/chili'],
  ['चिकन मंचूरियन', 'chicken manchurian'],
  ['वेज मोमोज़', 'veg momos/momo'],
  ['चिकन मोमोज़', 'chicken momos/momo'],
  ['पनीर सैंडविच', 'paneer sandwich'],
  ['चीज़ पिज़्ज़ा', 'cheese pizza'],
  ['पनीर पिज़्ज़ा', 'paneer pizza'],
  ['चिकन बर्गर', 'chicken burger'],
  ['आलू टिक्की बर्गर', 'aloo tikki burger'],
  ['मसाला फ्राइज़', 'masala fries'],
  ['मसाला पापड़', 'masala papad'],
  ['प्याज़ कुलचा', 'pyaz/pyaaz/onion kulcha'],
  ['पनीर कुलचा', 'paneer kulcha'],
  ['गोभी मटर', 'gobi/gobhi matar/mutter'],
  ['भिंडी दो प्याज़ा', 'bhindi do pyaza/pyaaza'],
  ['मिक्स वेज', 'mix veg'],
  ['वेज कोल्हापुरी', 'veg kolhapuri'],
  ['दाल पालक', 'dal/daal palak'],
  ['पालक दाल', 'palak dal/daal'],
  ['मूंग दाल खिचड़ी', 'moong dal khichdi'],
  ['चिकन कोरमा', 'chicken korma'],
  ['मटन करी चावल', 'mutton curry chawal'],
  ['चिकन करी चावल', 'chicken curry chawal'],
  ['मसाला छाछ', 'masala chaas/chaach/chhachh'],
  ['मीठा पान', 'meetha paan/pan'],
  ['केसर दूध', 'kesar doodh/milk'],
  ['हल्दी वाला दूध', 'haldi wala doodh'],
  ['गुड़ की खीर', 'gud/gur ki kheer'],
  ['चावल की खीर', 'chawal ki kheer'],
  ['सेवइयां खीर', 'seviyan/sevaiyan kheer'],
  ['अंडा करी चावल', 'anda/egg curry chawal'],
  ['पनीर टिक्का मसाला', 'paneer tikka masala'],
  ['मलाई पनीर', 'malai paneer'],
  ['कड़ाही चिकन', 'kadai/kadhai/karahi/kadahi chicken'],
  ['अचारी पनीर', 'achari paneer'],
  ['अचारी चिकन', 'achari chicken'],
  ['हरियाली चिकन', 'hariyali chicken'],
  ['लहसुनी पालक', 'lasuni/lehsuni/lasooni palak'],
  ['मेथी पराठा', 'methi paratha'],
  ['मूली पराठा', 'mooli/muli paratha'],
  ['पुदीना पराठा', 'pudina paratha'],
  ['बाजरा रोटी', 'bajra roti'],
  ['ज्वार भाकरी', 'jowar/jwar bhakri'],
];

/** Common dish words the rules alone (no dictionary) must spell as menus do. */
const RULE_WORDS: [string, Expected][] = [
  ['पनीर', 'paneer'],
  ['टिक्का', 'tikka'],
  ['बिरयानी', 'biryani'],
  ['मखनी', 'makhani/makhni'],
  ['दाल', 'dal/daal'],
  ['छोले', 'chole'],
  ['भटूरे', 'bhature/bhatoore'],
  ['मसाला', 'masala'],
  ['चाय', 'chai'],
  ['रायता', 'raita'],
  ['नान', 'naan'],
  ['चाट', 'chaat'],
  ['साग', 'saag'],
  ['घी', 'ghee'],
  ['खीर', 'kheer'],
  ['कुल्फी', 'kulfi'],
  ['हलवा', 'halwa'],
  ['चावल', 'chawal'],
  ['रसमलाई', 'rasmalai'],
  ['जलेबी', 'jalebi'],
  ['समोसा', 'samosa'],
  ['पराठा', 'paratha'],
  ['कीमा', 'keema'],
  ['कोरमा', 'korma'],
  ['कोफ्ता', 'kofta'],
  ['पुलाव', 'pulav/pulao'],
  ['गोभी', 'gobhi/gobi'],
  ['भिंडी', 'bhindi'],
  ['राजमा', 'rajma'],
  ['पोहा', 'poha'],
  ['उपमा', 'upma'],
  ['ढोकला', 'dhokla'],
  ['मलाई', 'malai'],
  ['शाही', 'shahi'],
  ['तंदूरी', 'tandoori'],
  ['पालक', 'palak'],
  ['मटर', 'matar'],
  ['बैंगन', 'baingan'],
  ['कचौरी', 'kachori'],
  ['जीरा', 'jeera'],
  ['अचारी', 'achari'],
  ['लच्छा', 'laccha/lachha'],
  ['लस्सी', 'lassi'],
  ['छाछ', 'chaach/chhachh/chaas'],
  ['ठंडाई', 'thandai'],
  ['शरबत', 'sharbat'],
  ['हल्दी', 'haldi'],
  ['मेथी', 'methi'],
  ['मूली', 'mooli'],
  ['आलू', 'aloo/alu'],
  ['पकोड़ा', 'pakoda/pakora'],
  ['भुर्जी', 'bhurji'],
  ['कढ़ी', 'kadhi'],
  ['कढ़ाई', 'kadhai/kadai'],
  ['हांडी', 'handi'],
  ['दम', 'dum/dam'],
  ['मुर्ग', 'murg/murgh'],
  ['गोश्त', 'gosht'],
  ['निहारी', 'nihari'],
  ['हलीम', 'haleem'],
  ['शामी', 'shami'],
  ['सीख', 'seekh'],
  ['बोटी', 'boti'],
  ['तवा', 'tawa/tava'],
  ['रोटी', 'roti'],
  ['पूरी', 'poori/puri'],
  ['भाजी', 'bhaji'],
  ['पाव', 'pav/paav'],
  ['वड़ा', 'vada'],
  ['डोसा', 'dosa'],
  ['इडली', 'idli'],
  ['सांभर', 'sambhar/sambar'],
  ['रसम', 'rasam'],
  ['उत्तपम', 'uttapam'],
  ['खिचड़ी', 'khichdi'],
  ['पापड़', 'papad'],
  ['अचार', 'achar/achaar'],
  ['चटनी', 'chatni/chutney'],
  ['रबड़ी', 'rabdi/rabri'],
  ['पेड़ा', 'peda'],
  ['बर्फी', 'barfi/burfi'],
  ['लड्डू', 'laddu/ladoo'],
  ['गुलाब', 'gulab'],
  ['जामुन', 'jamun'],
  ['रसगुल्ला', 'rasgulla'],
  ['फिरनी', 'firni/phirni'],
  ['शाहजहानी', 'shahjahani'],
  ['अमृतसरी', 'amritsari'],
  ['लखनवी', 'lakhnawi/lakhnavi/lucknowi'],
  ['हैदराबादी', 'haidrabadi/hyderabadi'],
  ['मुगलई', 'muglai/mughlai'],
  ['मुग़लई', 'mughlai'],
  ['पिंडी', 'pindi'],
  ['कुलचा', 'kulcha'],
  ['लहसुनी', 'lahsuni/lasuni'],
  ['पुदीना', 'pudina/pudeena'],
  ['अदरक', 'adrak'],
  ['इलायची', 'ilaichi/elaichi'],
  ['केसर', 'kesar'],
  ['पिस्ता', 'pista'],
  ['बादाम', 'badam'],
  ['काजू', 'kaju'],
  ['किशमिश', 'kishmish'],
  ['सरसों', 'sarson'],
  ['मक्की', 'makki'],
  ['बाजरा', 'bajra'],
  ['रागी', 'ragi'],
  ['सूजी', 'sooji/suji'],
  ['बेसन', 'besan'],
  ['मूंग', 'moong'],
  ['चना', 'chana'],
  ['छोला', 'chola'],
  ['कबाब', 'kabab'],
  ['काकोरी', 'kakori'],
  ['पत्थर', 'patthar'],
  ['चंपारण', 'champaran'],
  ['नवरतन', 'navratan/nawratan'],
  ['कोल्हापुरी', 'kolhapuri'],
  ['जालफ्रेज़ी', 'jalfrezi'],
  ['लबाबदार', 'lababdar'],
  ['दो', 'do'],
  ['प्याज़ा', 'pyaza/pyaaza'],
];

t.test('Devanagari dish names clean to the menu romanisation', async (t) => {
  t.ok(DISH_NAMES.length >= 150, `${DISH_NAMES.length} names`);
  for (const [devanagari, expected] of DISH_NAMES) {
    const got = clean(devanagari).text.toLowerCase();
    t.ok(accepts(expected, got), `${devanagari} → "${got}" (expected ${expected})`);
  }
});

/** Dish names in the other Brahmic scripts of India, read through Devanagari's layout. */
const OTHER_SCRIPTS: [string, string, Expected][] = [
  ['Bengali', 'স্পঞ্জ রসগোল্লা', 'sponge/spanj rasgulla/rasgolla/roshogolla'],
  ['Bengali', 'মাছের ঝোল', 'macher jhol'],
  ['Gurmukhi (addak doubles)', 'ਮੱਕੀ ਦੀ ਰੋਟੀ', 'makki di/dee roti'],
  ['Gujarati', 'મેથી થેપલા', 'methi thepla'],
  ['Gujarati', 'ચિકન બિરયાની', 'chicken biryani'],
  ['Odia (inherent a spoken)', 'ପଖାଳ', 'pakhala'],
  ['Telugu (final anusvara is m)', 'పాలకూర పప్పు అన్నం', 'palakura/palakoora pappu annam'],
  ['Telugu', 'కోడి పులుసు అన్నం', 'kodi pulusu annam'],
  ['Kannada', 'ರಾಗಿ ಇಡ್ಲಿ ಸಾಂಬಾರ್', 'ragi idli sambar'],
  ['Kannada (short e)', 'ಮಸಾಲ ದೋಸೆ', 'masala dose/dosa'],
  ['Malayalam (zh)', 'പഴംപൊരി', 'pazhampori/pazham_pori'],
  ['Tamil (voiced after a nasal and between vowels)', 'இட்லி சாம்பார்', 'idli sambar'],
  ['Tamil (a doubled stop stays voiceless)', 'கொழுக்கட்டை', 'kozhukattai/kozhukkattai'],
  ['Tamil (first த is th)', 'தயிர் சாதம்', 'thayir sadam/sadham'],
  ['Tamil (ச between vowels is s)', 'பாயசம்', 'payasam'],
];

t.test('dish names in Bengali, Gurmukhi, Gujarati, Odia, Telugu, Kannada, Malayalam and Tamil clean to Latin', async (t) => {
  for (const [script, text, expected] of OTHER_SCRIPTS) {
    const got = clean(text).text.toLowerCase();
    t.ok(accepts(expected, got), `${script}: ${text} → "${got}" (expected ${expected})`);
  }
  t.equal(clean('Ghee Roast Dosa 2 pcs').text, 'Ghee Roast Dosa', 'Latin text is untouched by the Indic reader');
  t.equal(clean('ಮಸಾಲ ದೋಸೆ ₹80').text.toLowerCase().replace(/ dosa$/, ' dose'), 'masala dose', 'a price beside a Kannada name is still noise');
});

t.test('most test names are not Devanagari aliases of the knowledge base, so the rules are exercised', async (t) => {
  const aliases = new Set(knowledge.book.dishes.flatMap((d) => d.aliases.filter(hasDevanagari).map((a) => a.normalize('NFC'))));
  const outside = DISH_NAMES.filter(([d]) => !aliases.has(d.normalize('NFC')));
  t.ok(outside.length >= 50, `${outside.length} of ${DISH_NAMES.length} names are not aliases`);
});

t.test('the rules alone spell common dish words as menus do', async (t) => {
  t.ok(RULE_WORDS.length >= 100, `${RULE_WORDS.length} words`);
  for (const [devanagari, expected] of RULE_WORDS) {
    const got = transliterateWord(devanagari);
    t.ok(accepts(expected, got), `${devanagari} → "${got}" (expected ${expected})`);
  }
});

t.test('rule details: schwa deletion, long vowels, nasals, nukta, conjuncts, digits', async (t) => {
  const cases: [string, string][] = [
    ['कमल', 'kamal'], // final schwa dropped
    ['नमकीन', 'namkeen'], // medial schwa dropped, medial ī → ee
    ['रसमलाई', 'rasmalai'], // left-to-right deletion: ras-malai, not rasam-lai
    ['पसंदा', 'pasanda'], // a nasalised schwa stays
    ['जालफ्रेज़ी', 'jalfrezi'], // a following conjunct counts as the next consonant; ज़ is z
    ['चाय', 'chai'], // य closing a syllable after a is the diphthong
    ['रायता', 'raita'],
    ['हलवा', 'halwa'], // व inside a word is w
    ['वड़ा', 'vada'], // … and v at its start; ड़ is d
    ['घी', 'ghee'], // one-syllable words double a long vowel
    ['नान', 'naan'],
    ['रोटी', 'roti'], // a final ī is i
    ['संभार', 'sambhar'], // anusvara before bh is m
    ['चंपारण', 'champaran'],
    ['क़ीमा', 'keema'], // क़ is k on menus
    ['फ़िरनी', 'firni'],
    ['लच्छा', 'laccha'], // च्छ is cch
    ['मुग़लई', 'mughlai'],
    ['और', 'aur'], // function words
    ['की', 'ki'],
    ['६५', '65'], // Devanagari digits
  ];
  for (const [devanagari, expected] of cases) t.equal(transliterateWord(devanagari), expected, `${devanagari} → ${expected}`);
  t.equal(transliterateWord('क़ीमा'), transliterateWord('क\u093Cीमा'), 'a precomposed nukta letter and base + nukta read alike');
  t.notOk(hasDevanagari('Paneer Tikka'));
  t.ok(hasDevanagari('Paneer टिक्का'));
});

t.test('transliterateDevanagari: the dictionary wins, other text passes through', async (t) => {
  const dictionary = new Map([['मखनी', 'makhani']]);
  t.equal(transliterateDevanagari('दाल मखनी ₹249', { functionWords, dictionary }), 'daal makhani ₹249');
  t.equal(transliterateDevanagari('दाल मखनी', { functionWords }), 'daal makhni', 'without the dictionary the rules answer');
  t.equal(transliterateDevanagari('Paneer (पनीर)', { functionWords, dictionary }), 'Paneer (paneer)');
});

t.test('aliases align with Latin names by sound, not by position', async (t) => {
  t.equal(soundKey('kebab'), soundKey('kabab'));
  t.equal(soundKey('Schezwan'), soundKey('shezwan'));
  t.not(soundKey('lemon'), soundKey('neembu'));
  t.ok(soundsLike('पराठा', 'parantha'));
  t.ok(soundsLike('पुलाव', 'pulao'));
  t.notOk(soundsLike('मटन', 'makhani'), 'three-letter keys differing inside are not alike');
  t.notOk(soundsLike('डबल', 'white'));

  // The canonical name does not sound like the alias; another Latin alias does, and is used.
  const bread = alignDevanagariAlias('डबल रोटी', ['White Bread', 'Double Roti']);
  t.same(bread.pairs, [{ deva: 'डबल', latin: 'double' }, { deva: 'रोटी', latin: 'roti' }]);
  t.equal(bread.latinName, 'Double Roti');
  // Word order may differ from the canonical name; the alignment keeps menu order and skips extra words.
  const pbm = alignDevanagariAlias('पनीर मखनी', ['Paneer Butter Masala', 'Makhani Paneer']);
  t.same(pbm.pairs.map((p) => p.latin), ['paneer', null], 'order-preserving: मखनी cannot pair with a word before paneer');
  t.same(alignDevanagariAlias('सोलकढ़ी', ['Sol Kadhi']).pairs, [{ deva: 'सोलकढ़ी', latin: 'sol kadhi' }], 'one Devanagari word, two Latin words');
  t.same(alignDevanagariAlias('नींबू चाय', ['Lemon Tea']).pairs.map((p) => p.latin), [null, null], 'a translation aligns nothing');

  const dict = buildDevanagariDictionary([
    { name: 'White Bread', aliases: ['Double Roti', 'डबल रोटी'] },
    { name: 'Lemon Tea', aliases: ['Nimbu Chai', 'नींबू चाय'] },
    { name: 'Paneer Butter Masala', aliases: ['Panner Butter Masala', 'पनीर बटर मसाला'] },
    { name: 'Paneer Tikka', aliases: ['Panner Tikka', 'पनीर टिक्का'] },
    { name: 'Nimbu Pani', aliases: ['Lemon Water', 'नींबू पानी'] },
  ]);
  t.equal(dict.get('डबल'), 'double');
  t.equal(dict.get('पनीर'), 'paneer', 'the canonical spelling outvotes the misspelled alias');
  t.equal(dict.get('नींबू'), 'nimbu');
  t.equal(dict.get('चाय'), 'chai');
  t.notOk([...dict.values()].includes('white') || [...dict.values()].includes('lemon'), 'translations are never learned');
});
