import { CLASSIFIER_DIR, HeadSlot, checkCuisineHead, type LinearHead } from './classify.js';
import { checkNonFoodHead } from './nonfood.js';
import { checkCourseHead } from './suggest.js';

/**
 * The linear heads fitted on an encoder's vectors (models/heads/: cuisine, course, non-food), each file read once by
 * whoever holds this: one per Services, so two services (or a test with other files) never share a loaded head.
 */
export class HeadFiles {
  readonly cuisine: HeadSlot;
  readonly course: HeadSlot;
  readonly nonFood: HeadSlot;
  private readonly views = new Map<string, EncoderHeads>();

  constructor(readonly dir: string = CLASSIFIER_DIR) {
    this.cuisine = new HeadSlot(dir, 'cuisine-head.json', checkCuisineHead);
    this.course = new HeadSlot(dir, 'course-head.json', checkCourseHead);
    this.nonFood = new HeadSlot(dir, 'nonfood-head.json', checkNonFoodHead);
  }

  /** The heads as they serve `encoderId`'s vectors: a head fitted on another encoder's is none (null: not checked). */
  for(encoderId: string | null): EncoderHeads {
    const key = encoderId ?? '';
    let view = this.views.get(key);
    if (!view) this.views.set(key, (view = new EncoderHeads(this, encoderId)));
    return view;
  }

  /** Forget the loaded files (tests swap them). */
  reset(): void {
    this.cuisine.reset();
    this.course.reset();
    this.nonFood.reset();
  }
}

/** The heads usable with one encoder's vectors; each is null when its file is missing, malformed or fitted elsewhere. */
export class EncoderHeads {
  constructor(
    readonly files: HeadFiles,
    readonly encoderId: string | null,
  ) {}

  cuisine(): LinearHead | null {
    return this.files.cuisine.forEncoder(this.encoderId);
  }

  course(): LinearHead | null {
    return this.files.course.forEncoder(this.encoderId);
  }

  nonFood(): LinearHead | null {
    return this.files.nonFood.forEncoder(this.encoderId);
  }
}
