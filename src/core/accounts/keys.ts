import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `mi_live_` + 32 random base62 characters (32 × log2 62 ≈ 190 bits) + 6 base62
 * characters of CRC-32 over everything before them. 46 characters, URL- and header-safe.
 *
 * - The prefix makes a leaked key recognisable to secret scanners and to people.
 * - The checksum lets a typo or a truncated paste be refused without a store lookup (a random string
 *   passes with probability 2^-32), so garbage cannot be used to load the store.
 * - The store keeps only SHA-256 of the key (a slow KDF buys nothing for 190-bit random secrets) and
 *   the display prefix (the first 16 characters: 8 random characters ≈ 48 bits, leaving > 140 bits
 *   unknown), which is what `keys list` shows and what `keys revoke` accepts.
 */
export const KEY_PREFIX = 'mi_live_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
export const DISPLAY_PREFIX_LENGTH = 16;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

const CRC32_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE); zlib.crc32 exists only from Node 20.15 and the engines range starts at 20.11. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC32_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base62Fixed(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** Uniform base62 characters: bytes ≥ 248 are rejected so that 248 = 4 × 62 divides evenly. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): string {
  const withoutChecksum = KEY_PREFIX + randomBase62(BODY_LENGTH);
  return withoutChecksum + base62Fixed(crc32(withoutChecksum), CHECKSUM_LENGTH);
}

/** True when `raw` has the shape of a key and its checksum matches; says nothing about the store. */
export function checkKeyFormat(raw: string): boolean {
  if (raw.length !== KEY_LENGTH || !KEY_PATTERN.test(raw)) return false;
  const withoutChecksum = raw.slice(0, -CHECKSUM_LENGTH);
  return raw.slice(-CHECKSUM_LENGTH) === base62Fixed(crc32(withoutChecksum), CHECKSUM_LENGTH);
}

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

export function displayPrefix(raw: string): string {
  return raw.slice(0, DISPLAY_PREFIX_LENGTH);
}

/**
 * Constant-time equality of a presented secret and the configured one. Both sides are hashed first so
 * that the comparison runs over equal-length digests: neither the content nor the length of the
 * secret leaks through timing.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
