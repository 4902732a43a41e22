/**
 * Numbers the API contract (../shared/spec/menu-intelligence-api.md) states, which the service applies but does not
 * choose. The HTTP routes restate them in their typia types (a literal, because typia reads types); the tests check
 * that the two agree.
 */

/** The contract's default cosine_threshold (/match, /dedup, /report, catalog jobs): the cosine at which a pair the
 * precision stage agrees with is the same dish. */
export const DEFAULT_COSINE_THRESHOLD = 0.85;
