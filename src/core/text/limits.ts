/**
 * The contract's limit on one menu item text, in Unicode code points. The HTTP routes state the same number in their
 * typia type (src/routes/route.ts `MenuText`, a literal because typia reads types), and the catalog jobs apply it to
 * every row; test/openapi.test.ts checks that the served document and this constant agree.
 */
export const MAX_TEXT_CHARS = 500;
