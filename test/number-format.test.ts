import t from 'tap';
import { msToSeconds, percentOf, roundCosine, roundHundredths, roundScore, unixSeconds } from '../src/core/number-format.js';

// Every endpoint writes its scores, cosines and percentages through these: a change here changes every response.
t.test('scores, cosines and percentages are rounded to the places the responses promise', async (t) => {
  t.equal(roundScore(0.123456), 0.1235, 'a score: four places');
  t.equal(roundScore(0.99996), 1, 'rounds up across the unit');
  t.equal(roundCosine(0.12345678), 0.123457, 'a cosine: six places');
  t.equal(roundHundredths(12.3456), 12.35);
  t.equal(percentOf(1, 3), 33.33);
  t.equal(percentOf(2, 2), 100);
  t.equal(percentOf(0, 0), 0, 'an empty whole is 0 %, not NaN');
});

t.test('time units', async (t) => {
  t.equal(msToSeconds(1500), 1.5);
  const now = unixSeconds();
  t.ok(Number.isInteger(now) && Math.abs(now - Date.now() / 1000) < 2, 'whole seconds since the epoch');
});
