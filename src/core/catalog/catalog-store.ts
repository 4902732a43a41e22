/**
 * What a catalog run keeps in memory per row and per distinct text, in typed arrays and interned strings rather than
 * row objects: a row costs 16 bytes (its original text, restaurant, outlet and input row number as ids), each distinct
 * original and cleaned text is stored once. A million rows of a real catalog (a few hundred thousand distinct names)
 * fit in a few hundred MB; the vectors live on disk (EmbeddingStore).
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }

  get(value: string): number | undefined {
    return this.ids.get(value);
  }

  get size(): number {
    return this.values.length;
  }
}

/** A growable Int32Array. */
export class IntColumn {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** The catalog as read: rows → originals → cleaned texts → nodes (one per distinct name, as dedup groups them). */
export class CatalogStore {
  /** Per row. */
  readonly rowNumber = new IntColumn();
  readonly rowOriginal = new IntColumn();
  /** -1 when the row has none. */
  readonly rowRestaurant = new IntColumn();
  readonly rowOutlet = new IntColumn();

  readonly originals = new Interner();
  /** Per original: its cleaned text's id, its node, and whether cleaning removed noise from it. */
  readonly originalText = new IntColumn();
  readonly originalNode = new IntColumn();
  readonly originalNoisy: number[] = [];

  readonly texts = new Interner();

  readonly nodeKeys = new Interner();
  /** Per node: the cleaned text of the first row that had it (the text clustering judges). */
  readonly nodeText = new IntColumn();

  readonly restaurants = new Interner();
  readonly outlets = new Interner();

  get rows(): number {
    return this.rowOriginal.length;
  }
}
