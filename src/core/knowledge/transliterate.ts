/**
 * Devanagari → Latin transliteration tuned to how Indian menus romanise dish names
 * (पनीर → paneer, टिक्का → tikka, बिरयानी → biryani, चाय → chai), not to ISO 15919.
 *
 * Two layers: a word dictionary learned from the knowledge base (Devanagari aliases aligned word by word with the
 * dish's Latin names, so the menu's own spelling wins: मखनी → makhani, दाल → dal), then rules for unknown words.
 * The rules follow menu habits rather than phonology textbooks:
 * - consonants carry an inherent "a" that Hindi drops at the end of a word and in the V C_C V position (schwa
 *   deletion, scanned left to right so रसमलाई is "rasmalai", अमृतसरी "amritsari");
 * - long ī/ū are "ee"/"oo" inside a word and "i"/"u" at its end (पनीर paneer, पूरी poori, रोटी roti), except in a
 *   one-syllable word (घी ghee); a one-syllable word spells a closed ā as "aa" (नान naan, चाट chaat, साग saag);
 * - य after an "a" with no vowel of its own is the diphthong "ai" (चाय chai, रायता raita);
 * - व is "v" at the edges of a word and "w" inside it (वड़ा vada, हलवा halwa, चावल chawal, शावरमा shawarma);
 * - फ is "f" and छ is "ch" (कुल्फी kulfi, फ्राइड fried, छोले chole), क़ is "k" (क़ीमा keema), ड़ is "d" (वड़ा vada);
 * - anusvara is "n", or "m" before p/b/m (संभार sambhar… चंपारण champaran).
 */

const CONSONANTS: Record<string, string> = {
  'क': 'k', 'ख': 'kh', 'ग': 'g', 'घ': 'gh', 'ङ': 'n', 'च': 'ch', 'छ': 'ch', 'ज': 'j', 'झ': 'jh', 'ञ': 'n',
  'ट': 't', 'ठ': 'th', 'ड': 'd', 'ढ': 'dh', 'ण': 'n', 'त': 't', 'थ': 'th', 'द': 'd', 'ध': 'dh', 'न': 'n',
  'प': 'p', 'फ': 'f', 'ब': 'b', 'भ': 'bh', 'म': 'm', 'य': 'y', 'र': 'r', 'ल': 'l', 'ळ': 'l', 'व': 'v',
  'श': 'sh', 'ष': 'sh', 'स': 's', 'ह': 'h',
  // Precomposed nukta letters (Unicode also allows base + U+093C, handled below).
  'क़': 'k', 'ख़': 'kh', 'ग़': 'gh', 'ज़': 'z', 'ड़': 'd', 'ढ़': 'dh', 'फ़': 'f', 'य़': 'y',
  // The letters Devanagari keeps for the Dravidian scripts: ன (n), ற (r), ழ (zh: kozhukattai, pazham).
  'ऩ': 'n', 'ऱ': 'r', 'ऴ': 'zh',
};
const NUKTA_FORMS: Record<string, string> = { 'क': 'k', 'ख': 'kh', 'ग': 'gh', 'ज': 'z', 'ड': 'd', 'ढ': 'dh', 'फ': 'f', 'य': 'y', 'न': 'n', 'र': 'r', 'ळ': 'zh' };

const INDEPENDENT_VOWELS: Record<string, { mid: string; final: string }> = {
  'अ': { mid: 'a', final: 'a' }, 'आ': { mid: 'a', final: 'a' }, 'इ': { mid: 'i', final: 'i' },
  'ई': { mid: 'ee', final: 'i' }, 'उ': { mid: 'u', final: 'u' }, 'ऊ': { mid: 'oo', final: 'u' },
  'ऋ': { mid: 'ri', final: 'ri' }, 'ए': { mid: 'e', final: 'e' }, 'ऐ': { mid: 'ai', final: 'ai' },
  'ओ': { mid: 'o', final: 'o' }, 'औ': { mid: 'au', final: 'au' }, 'ऍ': { mid: 'e', final: 'e' },
  'ऑ': { mid: 'o', final: 'o' }, 'ऎ': { mid: 'e', final: 'e' }, 'ऒ': { mid: 'o', final: 'o' },
};
/** Vowel signs; `final` is used when the sign ends the word. */
const MATRAS: Record<string, { mid: string; final: string }> = {
  'ा': { mid: 'a', final: 'a' }, 'ि': { mid: 'i', final: 'i' }, 'ी': { mid: 'ee', final: 'i' },
  'ु': { mid: 'u', final: 'u' }, 'ू': { mid: 'oo', final: 'u' }, 'ृ': { mid: 'ri', final: 'ri' },
  'े': { mid: 'e', final: 'e' }, 'ै': { mid: 'ai', final: 'ai' }, 'ो': { mid: 'o', final: 'o' },
  'ौ': { mid: 'au', final: 'au' }, 'ॅ': { mid: 'e', final: 'e' }, 'ॉ': { mid: 'o', final: 'o' },
  // Short e and o, which only the Dravidian scripts write apart from the long ones.
  'ॆ': { mid: 'e', final: 'e' }, 'ॊ': { mid: 'o', final: 'o' },
};
/** Long vowels, which a one-syllable word spells doubled (घी ghee, नान naan). */
const LONG_MONOSYLLABLE: Record<string, string> = { 'ा': 'aa', 'ी': 'ee', 'ू': 'oo' };
const INDEPENDENT_AS_SIGN: Record<string, string> = { 'आ': 'ा', 'ई': 'ी', 'ऊ': 'ू' };
const VIRAMA = '्';
const NUKTA = '़';
const ANUSVARA = 'ं';
const CHANDRABINDU = 'ँ';
const VISARGA = 'ः';
const DIGITS = '०१२३४५६७८९';

export function hasDevanagari(text: string): boolean {
  return /[\u0900-\u097F]/.test(text);
}

interface Syllable {
  /** Latin consonant, or null for an independent vowel / other character. */
  consonant: string | null;
  /** The Devanagari consonant letter (without nukta), for the few letters whose spelling depends on position. */
  letter: string | null;
  /** Explicit vowel (matra or independent vowel); null = inherent schwa. */
  vowel: string | null;
  vowelFinal: string | null;
  /** The Devanagari vowel sign, for the one-syllable long-vowel rule. */
  matra: string | null;
  virama: boolean;
  nasal: boolean;
  /** Digits, punctuation, visarga. */
  other: string | null;
}

function syllable(partial: Partial<Syllable>): Syllable {
  return { consonant: null, letter: null, vowel: null, vowelFinal: null, matra: null, virama: false, nasal: false, other: null, ...partial };
}

function parseWord(word: string): Syllable[] {
  const out: Syllable[] = [];
  const chars = [...word.normalize('NFC')];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const last = out[out.length - 1];
    if (CONSONANTS[ch] !== undefined) {
      let latin = CONSONANTS[ch]!;
      if (chars[i + 1] === NUKTA) {
        latin = NUKTA_FORMS[ch] ?? latin;
        i++;
      }
      out.push(syllable({ consonant: latin, letter: ch }));
    } else if (MATRAS[ch] && last !== undefined && last.consonant !== null && last.vowel === null && !last.virama) {
      last.vowel = MATRAS[ch]!.mid;
      last.vowelFinal = MATRAS[ch]!.final;
      last.matra = ch;
    } else if (ch === VIRAMA && last !== undefined && last.consonant !== null) {
      last.virama = true;
    } else if ((ch === ANUSVARA || ch === CHANDRABINDU) && last !== undefined && last.other === null) {
      last.nasal = true;
    } else if (INDEPENDENT_VOWELS[ch] !== undefined) {
      const v = INDEPENDENT_VOWELS[ch]!;
      out.push(syllable({ vowel: v.mid, vowelFinal: v.final, matra: INDEPENDENT_AS_SIGN[ch] ?? null }));
    } else if (ch === VISARGA) {
      out.push(syllable({ other: 'h' }));
    } else if (DIGITS.includes(ch)) {
      out.push(syllable({ other: String(DIGITS.indexOf(ch)) }));
    } else if (ch === NUKTA || MATRAS[ch]) {
      // A stray nukta or a vowel sign with no consonant to sit on: nothing a menu would print.
    } else {
      out.push(syllable({ other: ch }));
    }
  }
  return out;
}

/**
 * Rule-based transliteration of one Devanagari word. `functionWords` (lexicon/devanagari_function_words.tsv) spells
 * the function words of dish names ("की" ki, "वाली" wali) the way menus print them, before the rules.
 */
export function transliterateWord(word: string, functionWords: ReadonlyMap<string, string>, inherentVowel: InherentVowel = 'dropped'): string {
  const fixed = functionWords.get(word.normalize('NFC'));
  if (fixed !== undefined) return fixed;
  const syl = parseWord(word);
  const letters = syl.filter((s) => s.other === null);
  // Pronounced inherent schwas: every consonant without a vowel sign or virama starts with one.
  const schwa = syl.map((s) => s.consonant !== null && s.vowel === null && !s.virama);
  const lastLetter = syl.length - 1;
  const spoken = (i: number): boolean => {
    const s = syl[i];
    return s !== undefined && s.other === null && (s.vowel !== null || schwa[i] === true);
  };
  // Word-final schwa is silent (कमल kamal), except in a one-letter word (न na).
  if (inherentVowel === 'dropped' && letters.length > 1 && schwa[lastLetter] && syl[lastLetter]!.other === null) schwa[lastLetter] = false;
  // Medial deletion: V C(a) C V → V C C V. A nasalised schwa is never dropped (पसंदा pasanda), nor one right after a
  // virama conjunct (the conjunct already closes the previous syllable). A following conjunct counts as the next
  // consonant (जालफ्रेज़ी jalfrezi).
  const onsetSpoken = (i: number): boolean => {
    let k = i;
    while (syl[k]?.virama) k++;
    return syl[k]?.consonant != null && spoken(k);
  };
  // Scanned left to right: compounds split that way more often on menus (रस+मलाई rasmalai, गोल+गप्पे golgappe,
  // अमृत+सरी amritsari) than the other way (शावर्मा, बाकरखानी are in the learned dictionary).
  for (let i = 1; i < lastLetter && inherentVowel === 'dropped'; i++) {
    if (!schwa[i] || syl[i]!.nasal) continue;
    const prev = syl[i - 1]!;
    const next = syl[i + 1]!;
    if (prev.virama || !spoken(i - 1)) continue;
    if (next.consonant === null || !onsetSpoken(i + 1)) continue;
    schwa[i] = false;
  }
  const vowelCount = syl.reduce((n, _, i) => n + (spoken(i) ? 1 : 0), 0);
  const monosyllable = vowelCount === 1;

  let out = '';
  for (let i = 0; i < syl.length; i++) {
    const s = syl[i]!;
    if (s.other !== null) {
      out += s.other;
      continue;
    }
    const prev = syl[i - 1];
    const next = syl[i + 1];
    const isFinal = i === lastLetter || next?.other != null;
    if (s.consonant !== null) {
      let latin = s.consonant;
      const hasOwnVowel = s.vowel !== null || schwa[i] === true;
      if (s.letter === 'व' && i > 0 && prev?.other === null && (i !== lastLetter || hasOwnVowel)) latin = 'w';
      // य closing a syllable after "a" is the diphthong: चाय chai, रायता raita, इलायची ilaichi.
      if (s.letter === 'य' && !hasOwnVowel && prev !== undefined && prev.other === null && !prev.virama
        && (prev.vowel === 'a' || (prev.vowel === null && schwa[i - 1] === true)) && !prev.nasal) latin = 'i';
      // Doubled च (कच्चा kaccha, अच्छा accha) is written "cch" on menus, not "chch".
      if ((s.letter === 'च' || s.letter === 'छ') && prev?.letter === 'च' && prev.virama) latin = 'ch';
      if (s.letter === 'च' && s.virama && (next?.letter === 'च' || next?.letter === 'छ')) latin = 'c';
      out += latin;
    }
    if (s.vowel !== null) {
      if (s.matra === 'ौ' && !isFinal && i > 0) {
        out += 'o';
      } else if (monosyllable && s.matra !== null && LONG_MONOSYLLABLE[s.matra] !== undefined
        && (s.matra !== 'ा' || (!isFinal && next?.letter !== 'य'))) {
        out += LONG_MONOSYLLABLE[s.matra]!;
      } else {
        out += isFinal ? s.vowelFinal! : s.vowel;
      }
    } else if (schwa[i]) {
      out += 'a';
    }
    if (s.nasal) {
      // A word-final anusvara of the Dravidian scripts is "m" (అన్నం annam, പഴം pazham).
      out += (next && next.consonant !== null && /^(p|b|m|f)/.test(next.consonant)) || (inherentVowel === 'spoken' && isFinal) ? 'm' : 'n';
    }
  }
  return out;
}

/** The tables Devanagari is read with: function words (lexicon) and, once learned, the menu-spelling dictionary. */
export interface DevanagariTables {
  readonly functionWords: ReadonlyMap<string, string>;
  /** Devanagari word → the menu's Latin spelling (see buildDevanagariDictionary); wins over the rules. */
  readonly dictionary?: ReadonlyMap<string, string>;
}

/** Transliterates every Devanagari word of `text`; other characters pass through. */
export function transliterateDevanagari(text: string, tables: DevanagariTables, inherentVowel: InherentVowel = 'dropped'): string {
  return text.replace(/[\u0900-\u0963\u0966-\u097F]+/g, (word) => dictionaryWord(word, tables) ?? transliterateWord(word, tables.functionWords, inherentVowel));
}

/**
 * Whether a consonant's inherent "a" is silent at the end of a word and in V C_C V (Hindi, Punjabi, Gujarati, Bengali:
 * कमल kamal, થેપલા thepla) or always spoken (the Dravidian scripts and Odia: పాలకూర palakura, ರಾಗಿ ragi).
 */
export type InherentVowel = 'dropped' | 'spoken';

/** Any letter of the Brahmic scripts of India, Devanagari to Malayalam. */
export function hasIndicScript(text: string): boolean {
  return /[\u0900-\u0D7F]/.test(text);
}

/**
 * The Brahmic scripts of India share Devanagari's layout (ISCII, kept by Unicode): a letter sits at the same offset in
 * each 128-code-point block, from Bengali (U+0980) to Malayalam (U+0D00). So a word of any of them is read by mapping
 * it letter for letter onto Devanagari and reading that (রসগোল্লা → रसगोल्ला rasgolla, ಇಡ್ಲಿ → इड्लि idli). The
 * letters a script has of its own are spelled out here; the rest of the block past its letters and digits is signs
 * and currency, dropped.
 */
const INDIC_FIRST = 0x0980;
const INDIC_LAST = 0x0d7f;
const DRAVIDIAN_OR_ODIA = (cp: number): boolean => cp >= 0x0b00; // Odia, Tamil, Telugu, Kannada, Malayalam
const TAMIL = (cp: number): boolean => cp >= 0x0b80 && cp < 0x0c00;
const GURMUKHI_ADDAK = 0x0a71; // doubles the consonant after it (ਮੱਕੀ makki)
const OWN_LETTERS: ReadonlyMap<number, string> = new Map([
  [0x09ce, 'त्'], [0x09f0, 'र'], [0x09f1, 'व'], // Bengali khanda ta; Assamese ra, wa
  [0x0a70, 'ं'], [0x0a75, 'य्'], // Gurmukhi tippi (a nasal), yakash
  [0x0d4e, 'र्'], [0x0d54, 'म्'], [0x0d55, 'य्'], [0x0d56, 'ळ्'], // Malayalam dot reph and chillus
  [0x0d7a, 'ण्'], [0x0d7b, 'न्'], [0x0d7c, 'र्'], [0x0d7d, 'ल्'], [0x0d7e, 'ळ्'], [0x0d7f, 'क्'],
  // Length marks (the second half of a two-part vowel already composed) and the Tamil aytham: nothing to spell.
  [0x09d7, ''], [0x0b56, ''], [0x0b57, ''], [0x0bd7, ''], [0x0c55, ''], [0x0c56, ''], [0x0cd5, ''], [0x0cd6, ''], [0x0d57, ''], [0x0b83, ''],
]);

function toDevanagari(word: string): string {
  const chars = [...word.normalize('NFC')];
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    if (cp < INDIC_FIRST || cp > INDIC_LAST) out += chars[i];
    else if (OWN_LETTERS.has(cp)) out += OWN_LETTERS.get(cp);
    else if (cp === GURMUKHI_ADDAK) {
      const next = chars[i + 1]?.codePointAt(0);
      if (next !== undefined && next >= INDIC_FIRST && next <= INDIC_LAST) out += String.fromCodePoint(0x0900 + (next & 0x7f)) + VIRAMA;
    } else if ((cp & 0x7f) < 0x70) out += String.fromCodePoint(0x0900 + (cp & 0x7f));
  }
  return out;
}

/**
 * Tamil writes one letter for a stop and its voiced sound and says which by position, the way menus then spell it:
 * voiced after a nasal (சாம்பார் sambar, பொங்கல் pongal) and between vowels (இட்லி idli, சாதம் sadam), where ச is
 * "s" (பாயசம் payasam); voiceless when doubled (கொழுக்கட்டை kozhukattai) or first, where ச is "s" too and த is
 * written "th" (தயிர் thayir). Applied to the word already in Devanagari letters.
 */
const TAMIL_VOICED: Readonly<Record<string, string>> = { 'क': 'ग', 'च': 'स', 'ट': 'ड', 'त': 'द', 'प': 'ब' };
const TAMIL_FIRST: Readonly<Record<string, string>> = { 'च': 'स', 'त': 'थ' };
const NASALS = new Set(['ङ', 'ञ', 'ण', 'न', 'म', 'ऩ']);
function voicedTamil(word: string): string {
  const chars = [...word];
  return chars.map((ch, i) => {
    if (TAMIL_VOICED[ch] === undefined) return ch;
    if (i === 0) return TAMIL_FIRST[ch] ?? ch;
    // The first of a doubled stop, or one closing the word (a join to the next word's stop): voiceless.
    if (chars[i + 1] === VIRAMA && (chars[i + 2] === ch || chars[i + 2] === undefined)) return ch;
    const prev = chars[i - 1]!;
    if (prev === VIRAMA) return NASALS.has(chars[i - 2] ?? '') ? TAMIL_VOICED[ch]! : ch;
    return CONSONANTS[prev] !== undefined || MATRAS[prev] !== undefined || INDEPENDENT_VOWELS[prev] !== undefined ? TAMIL_VOICED[ch]! : ch;
  }).join('');
}

/** Transliterates every word of `text` in an Indic script (Devanagari included); other characters pass through. */
export function transliterateIndic(text: string, tables: DevanagariTables): string {
  return text.replace(/[\u0900-\u0D7F]+/g, (word) => {
    // The script of a word is the block of its first letter.
    const first = word.codePointAt(0)!;
    if (first < INDIC_FIRST) return transliterateDevanagari(word, tables);
    const devanagari = toDevanagari(word);
    return transliterateDevanagari(TAMIL(first) ? voicedTamil(devanagari) : devanagari, tables, DRAVIDIAN_OR_ODIA(first) ? 'spoken' : 'dropped');
  });
}

/**
 * The dictionary's Latin spelling of a Devanagari word, read as written or, when the dictionary lacks that, without
 * its nuktas: writers put a nukta where the dictionary's spelling has none (वेज़ for वेज, "veg").
 */
function dictionaryWord(word: string, tables: DevanagariTables): string | undefined {
  const nfc = word.normalize('NFC');
  const found = tables.dictionary?.get(nfc);
  if (found !== undefined || !tables.dictionary) return found;
  const bare = nfc.normalize('NFD').replaceAll(NUKTA, '').normalize('NFC');
  return bare === nfc ? undefined : tables.dictionary.get(bare);
}

// ---------------------------------------------------------------------------------------------------------------
// Learning menu spellings from the knowledge base

/**
 * A coarse sound key for comparing a Latin menu word with a transliteration: aspiration, vowel quality, doubled
 * letters and the usual Latin spelling pairs (c/k, ph/f, sch/sh, w/v, z/s, g/j, q/k) are folded, vowels are dropped
 * except a leading one. "kebab" and "kabab" share a key; "lemon" and "neembu" do not.
 */
export function soundKey(latin: string): string {
  let s = latin.toLowerCase().replace(/[^a-z]/g, '');
  const leadingVowel = /^[aeiou]/.test(s);
  s = s
    .replace(/sch/g, 'sh')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/q/g, 'k')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c(?!h)/g, 'k')
    .replace(/ch+/g, 'C')
    .replace(/sh/g, 's')
    .replace(/([kgjtdb])h/g, '$1')
    .replace(/h/g, '')
    .replace(/w/g, 'v')
    .replace(/z/g, 's')
    .replace(/g/g, 'j')
    .replace(/[aeiouy]/g, '')
    .replace(/(.)\1+/g, '$1');
  return (leadingVowel ? 'A' : '') + s;
}

function editDistanceSmall(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return dp[b.length]!;
}

function keysAlike(a: string, b: string): boolean {
  if (a === b) return a !== '';
  if (a[0] !== b[0] || Math.abs(a.length - b.length) > 1) return false;
  const longest = Math.max(a.length, b.length);
  // Three-letter keys may differ only by a last letter (pulav / pulao); "matan" and "makhani" do not align.
  if (longest === 3) return a.startsWith(b) || b.startsWith(a);
  return longest >= 4 && editDistanceSmall(a, b) <= 1;
}

/**
 * True when the Latin word `latin` can be a romanisation of the Devanagari word `deva`: their sound keys are equal,
 * or differ by one letter when the keys are at least four long and start alike (parantha / पराठा), or by a last
 * letter when three long (pulao / पुलाव). Translations (नींबू / lemon, डबल / white) never pass.
 */
export function soundsLike(deva: string, latin: string, functionWords: ReadonlyMap<string, string>): boolean {
  return keysAlike(soundKey(transliterateWord(deva, functionWords)), soundKey(latin));
}

export interface WordAlignment {
  /** Devanagari word → the Latin word(s) it was aligned with, or null when nothing in the Latin name sounds like it. */
  readonly pairs: readonly { readonly deva: string; readonly latin: string | null }[];
  /** The Latin name the alignment used. */
  readonly latinName: string;
}

function latinWords(name: string): string[] {
  return name.toLowerCase().split(/[\s\-/,&()]+/).filter(Boolean);
}

/**
 * Sound keys of the words of one alignment run, memoised: they are pure functions of the word, and the knowledge
 * base repeats words a lot. One is made per dictionary build (or per alignment when none is passed).
 */
export class SoundKeys {
  private readonly keys = new Map<string, string>();

  constructor(private readonly functionWords: ReadonlyMap<string, string>) {}

  of(word: string, deva: boolean): string {
    const cacheKey = deva ? word : `\u0000${word}`;
    let key = this.keys.get(cacheKey);
    if (key === undefined) {
      key = soundKey(deva ? transliterateWord(word, this.functionWords) : word);
      this.keys.set(cacheKey, key);
    }
    return key;
  }
}

/**
 * Aligns the words of a Devanagari alias with the best-matching Latin name of the same dish: an order-preserving
 * alignment (like a diff) where a Devanagari word pairs with one Latin word, or with two adjacent Latin words
 * written as one (सोलकढ़ी ↔ sol kadhi), only when they sound alike. Among the Latin names the one aligning the
 * most words wins (first listed on ties, so the canonical name goes first).
 */
export function alignDevanagariAlias(alias: string, latinNames: readonly string[], keys: SoundKeys): WordAlignment {
  const deva = alias.normalize('NFC').split(/\s+/).filter(Boolean);
  const devaKeys = deva.map((d) => (hasDevanagari(d) ? keys.of(d, true) : ''));
  const n = deva.length;
  let best: { matched: number; pairs: (string | null)[]; latinName: string } | null = null;
  for (const name of latinNames) {
    const lat = latinWords(name);
    const m = lat.length;
    const latKeys = lat.map((w) => keys.of(w, false));
    const joinedKeys = lat.slice(0, -1).map((w, j) => keys.of(w + lat[j + 1]!, false));
    // score[i][j]: most aligned words using deva[i..] and lat[j..]; move[i][j]: the step that achieves it.
    const score: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
    const move: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
    const SKIP_DEVA = 0;
    const SKIP_LATIN = 1;
    const ONE = 2;
    const TWO = 3;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m; j >= 0; j--) {
        let bestScore = score[i + 1]![j]!;
        let bestMove = SKIP_DEVA;
        if (j < m && score[i]![j + 1]! > bestScore) {
          bestScore = score[i]![j + 1]!;
          bestMove = SKIP_LATIN;
        }
        if (devaKeys[i] !== '' && j < m && keysAlike(devaKeys[i]!, latKeys[j]!) && 1 + score[i + 1]![j + 1]! > bestScore) {
          bestScore = 1 + score[i + 1]![j + 1]!;
          bestMove = ONE;
        }
        if (devaKeys[i] !== '' && j + 1 < m && keysAlike(devaKeys[i]!, joinedKeys[j]!) && 1 + score[i + 1]![j + 2]! > bestScore) {
          bestScore = 1 + score[i + 1]![j + 2]!;
          bestMove = TWO;
        }
        score[i]![j] = bestScore;
        move[i]![j] = bestMove;
      }
    }
    const matched = score[0]![0]!;
    if (best !== null && matched <= best.matched) continue;
    const pairs: (string | null)[] = [];
    for (let i = 0, j = 0; i < n;) {
      const step = move[i]![j]!;
      if (step === SKIP_DEVA) {
        pairs.push(null);
        i++;
      } else if (step === SKIP_LATIN) {
        j++;
      } else if (step === ONE) {
        pairs.push(lat[j]!);
        i++;
        j++;
      } else {
        pairs.push(`${lat[j]!} ${lat[j + 1]!}`);
        i++;
        j += 2;
      }
    }
    best = { matched, pairs, latinName: name };
    if (matched === n) break;
  }
  const pairs = deva.map((d, i) => ({ deva: d, latin: best?.pairs[i] ?? null }));
  return { pairs, latinName: best?.latinName ?? '' };
}

/**
 * Learns word spellings from dish entries: each Devanagari alias is aligned with the dish's Latin names
 * (alignDevanagariAlias), and every word that sounds like its Latin partner votes for that spelling: the canonical
 * name's words count double, so पनीर learns "paneer" even though "panner" is also listed. Words that are
 * translations rather than romanisations (नींबू in "नींबू चाय" for Lemon Tea) learn nothing.
 */
export function buildDevanagariDictionary(
  entries: Iterable<{ name: string; aliases: readonly string[] }>,
  functionWords: ReadonlyMap<string, string>,
): Map<string, string> {
  const keys = new SoundKeys(functionWords);
  const votes = new Map<string, Map<string, number>>();
  for (const e of entries) {
    const devaAliases = e.aliases.filter(hasDevanagari);
    if (devaAliases.length === 0) continue;
    const latinNames = [e.name, ...e.aliases.filter((a) => !hasDevanagari(a))];
    for (const alias of devaAliases) {
      const { pairs, latinName } = alignDevanagariAlias(alias, latinNames, keys);
      const weight = latinName === e.name ? 2 : 1;
      for (const { deva, latin } of pairs) {
        if (latin === null || !/^[a-z]+( [a-z]+)?$/.test(latin)) continue;
        const m = votes.get(deva) ?? new Map<string, number>();
        m.set(latin, (m.get(latin) ?? 0) + weight);
        votes.set(deva, m);
      }
    }
  }
  const dict = new Map<string, string>();
  for (const [w, m] of votes) {
    const best = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
    dict.set(w, best[0]);
  }
  return dict;
}
