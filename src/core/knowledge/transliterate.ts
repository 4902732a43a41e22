/**
 * Devanagari → Latin transliteration tuned to how Indian menus romanise dish names
 * (पनीर → paneer, टिक्का → tikka, बिरयानी → biryani, दाल → dal), not to ISO 15919.
 *
 * Two layers: a word dictionary learned from the knowledge base (Devanagari aliases aligned word by word with the
 * dish's Latin name, so the menu's own spelling wins: मखनी → makhani), then rules for unknown words: consonants
 * carry an inherent "a" that Hindi drops at the end of a word and in the V C_C V position (schwa deletion), long ī/ū
 * are "ee"/"oo" inside a word and "i"/"u" at its end, anusvara is "n" (or "m" before p/b/m).
 */

const CONSONANTS: Record<string, string> = {
  'क': 'k', 'ख': 'kh', 'ग': 'g', 'घ': 'gh', 'ङ': 'n', 'च': 'ch', 'छ': 'chh', 'ज': 'j', 'झ': 'jh', 'ञ': 'n',
  'ट': 't', 'ठ': 'th', 'ड': 'd', 'ढ': 'dh', 'ण': 'n', 'त': 't', 'थ': 'th', 'द': 'd', 'ध': 'dh', 'न': 'n',
  'प': 'p', 'फ': 'ph', 'ब': 'b', 'भ': 'bh', 'म': 'm', 'य': 'y', 'र': 'r', 'ल': 'l', 'ळ': 'l', 'व': 'v',
  'श': 'sh', 'ष': 'sh', 'स': 's', 'ह': 'h',
  // Precomposed nukta letters (Unicode also allows base + U+093C, handled below).
  'क़': 'q', 'ख़': 'kh', 'ग़': 'gh', 'ज़': 'z', 'ड़': 'd', 'ढ़': 'dh', 'फ़': 'f', 'य़': 'y',
};
const NUKTA_FORMS: Record<string, string> = { 'क': 'q', 'ख': 'kh', 'ग': 'gh', 'ज': 'z', 'ड': 'd', 'ढ': 'dh', 'फ': 'f', 'य': 'y' };

const INDEPENDENT_VOWELS: Record<string, string> = {
  'अ': 'a', 'आ': 'aa', 'इ': 'i', 'ई': 'ee', 'उ': 'u', 'ऊ': 'oo', 'ऋ': 'ri', 'ए': 'e', 'ऐ': 'ai', 'ओ': 'o', 'औ': 'au',
  'ऍ': 'e', 'ऑ': 'o',
};
/** Vowel signs; `final` is used when the sign ends the word. */
const MATRAS: Record<string, { mid: string; final: string }> = {
  'ा': { mid: 'a', final: 'a' }, 'ि': { mid: 'i', final: 'i' }, 'ी': { mid: 'ee', final: 'i' },
  'ु': { mid: 'u', final: 'u' }, 'ू': { mid: 'oo', final: 'u' }, 'ृ': { mid: 'ri', final: 'ri' },
  'े': { mid: 'e', final: 'e' }, 'ै': { mid: 'ai', final: 'ai' }, 'ो': { mid: 'o', final: 'o' },
  'ौ': { mid: 'au', final: 'au' }, 'ॅ': { mid: 'e', final: 'e' }, 'ॉ': { mid: 'o', final: 'o' },
};
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
  consonant: string | null; // Latin consonant cluster head
  vowel: string | null; // explicit vowel (matra or independent), null = inherent schwa
  vowelFinal: string | null;
  virama: boolean;
  nasal: boolean;
  other: string | null; // digits, punctuation, visarga
}

function parseWord(word: string): Syllable[] {
  const out: Syllable[] = [];
  const chars = [...word.normalize('NFC')];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (CONSONANTS[ch] !== undefined) {
      let latin = CONSONANTS[ch]!;
      if (chars[i + 1] === NUKTA) {
        latin = NUKTA_FORMS[ch] ?? latin;
        i++;
      }
      out.push({ consonant: latin, vowel: null, vowelFinal: null, virama: false, nasal: false, other: null });
    } else if (MATRAS[ch] && out.length > 0 && out[out.length - 1]!.consonant !== null) {
      const last = out[out.length - 1]!;
      last.vowel = MATRAS[ch]!.mid;
      last.vowelFinal = MATRAS[ch]!.final;
    } else if (ch === VIRAMA && out.length > 0) {
      out[out.length - 1]!.virama = true;
    } else if ((ch === ANUSVARA || ch === CHANDRABINDU) && out.length > 0) {
      out[out.length - 1]!.nasal = true;
    } else if (INDEPENDENT_VOWELS[ch] !== undefined) {
      const v = INDEPENDENT_VOWELS[ch]!;
      const final = v === 'ee' ? 'i' : v === 'oo' ? 'u' : v === 'aa' ? 'a' : v;
      out.push({ consonant: null, vowel: v === 'aa' ? 'a' : v, vowelFinal: final, virama: false, nasal: false, other: null });
    } else if (ch === VISARGA) {
      out.push({ consonant: null, vowel: null, vowelFinal: null, virama: false, nasal: false, other: 'h' });
    } else if (DIGITS.includes(ch)) {
      out.push({ consonant: null, vowel: null, vowelFinal: null, virama: false, nasal: false, other: String(DIGITS.indexOf(ch)) });
    } else if (ch === NUKTA) {
      // stray nukta: ignore
    } else {
      out.push({ consonant: null, vowel: null, vowelFinal: null, virama: false, nasal: false, other: ch });
    }
  }
  return out;
}

function hasVowel(s: Syllable | undefined): boolean {
  return s !== undefined && s.other === null && !s.virama && (s.vowel !== null || s.consonant !== null);
}

/** Rule-based transliteration of one Devanagari word. */
export function transliterateWord(word: string): string {
  const syl = parseWord(word);
  // Decide which inherent schwas are pronounced.
  const schwa = syl.map((s) => s.consonant !== null && s.vowel === null && !s.virama);
  const lastLetter = syl.length - 1;
  if (lastLetter > 0 && schwa[lastLetter] && syl[lastLetter]!.other === null) schwa[lastLetter] = false;
  // Medial deletion, right to left: V C(a) C V → V C C V.
  for (let i = lastLetter - 1; i >= 1; i--) {
    if (!schwa[i]) continue;
    const prev = syl[i - 1]!;
    const next = syl[i + 1];
    const prevVoiced = prev.vowel !== null || schwa[i - 1] === true;
    const nextHasVowel = next !== undefined && next.consonant !== null && (next.vowel !== null || schwa[i + 1] === true);
    if (prevVoiced && nextHasVowel && !prev.virama) schwa[i] = false;
  }
  let out = '';
  for (let i = 0; i < syl.length; i++) {
    const s = syl[i]!;
    if (s.other !== null) {
      out += s.other;
      continue;
    }
    if (s.consonant !== null) out += s.consonant;
    const isFinal = i === lastLetter;
    if (s.vowel !== null) out += isFinal ? s.vowelFinal! : s.vowel;
    else if (schwa[i]) out += 'a';
    if (s.nasal) {
      const next = syl[i + 1];
      out += next && next.consonant !== null && /^(p|b|m)/.test(next.consonant) ? 'm' : 'n';
    }
  }
  void hasVowel;
  return out;
}

/**
 * Transliterates every Devanagari word of `text`; other characters pass through. `dictionary` maps a Devanagari
 * word to the menu's Latin spelling (see buildDevanagariDictionary) and wins over the rules.
 */
export function transliterateDevanagari(text: string, dictionary?: ReadonlyMap<string, string>): string {
  return text.replace(/[\u0900-\u0963\u0966-\u097F]+/g, (word) => dictionary?.get(word.normalize('NFC')) ?? transliterateWord(word));
}

/**
 * Learns word spellings from dish entries: when a Devanagari alias has as many words as the dish's Latin name
 * (or one of its Latin aliases), the words are aligned one to one (पनीर टिक्का ↔ Paneer Tikka).
 * Words seen with conflicting spellings keep the most frequent one.
 */
export function buildDevanagariDictionary(entries: Iterable<{ name: string; aliases: readonly string[] }>): Map<string, string> {
  const votes = new Map<string, Map<string, number>>();
  for (const e of entries) {
    const latinNames = [e.name, ...e.aliases.filter((a) => !hasDevanagari(a))].map((n) => n.toLowerCase().split(/[\s-]+/).filter(Boolean));
    for (const alias of e.aliases) {
      if (!hasDevanagari(alias)) continue;
      const words = alias.normalize('NFC').split(/\s+/).filter(Boolean);
      const match = latinNames.find((ln) => ln.length === words.length);
      if (!match) continue;
      words.forEach((w, i) => {
        if (!hasDevanagari(w) || !/^[a-z]+$/.test(match[i]!)) return;
        const m = votes.get(w) ?? new Map<string, number>();
        m.set(match[i]!, (m.get(match[i]!) ?? 0) + 1);
        votes.set(w, m);
      });
    }
  }
  const dict = new Map<string, string>();
  for (const [w, m] of votes) {
    const best = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
    dict.set(w, best[0]);
  }
  return dict;
}
