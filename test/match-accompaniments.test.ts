import t from 'tap';
import { withoutAccompaniments } from '../src/core/match.js';

t.test('withoutAccompaniments: the dish without a tail that only lists what comes with it', async (t) => {
  const cases: [string, string | null][] = [
    ['Paneer Tikka with Mint Chutney', 'paneer tikka'],
    ['Crunchy Chicken Nuggets + 2 Dips', 'crunchy chicken nuggets'],
    ['Idli with Chutney', 'idli'],
    ['Fish Fingers With Tartar Sauce', 'fish fingers'],
    ['Chicken Dum Biryani raita And Salad', 'chicken dum biryani'],
    ['Chicken Dum Biryani raita & Salad', 'chicken dum biryani'],
    // a combo: another dish or a drink after the marker
    ['Choco Lava Cake + Coke', null],
    ['Chicken Biryani + Chicken Seekh Kabab + Green Salad', 'chicken biryani chicken seekh kabab'],
    ['Veg Biryani with Extra Gravy Portion Inside', null],
    // dishes named after an accompaniment word stay dishes
    ['Boondi Raita', null],
    ['Chicken Salad', null],
    ['Green Salad', null],
    ['Salad', null],
    ['with Chutney', null],
    ['Mint Chutney', null],
    // no marker: one trailing accompaniment is the dish's own name, not a tail
    ['Aloo Tikki Chutney', null],
  ];
  for (const [text, core] of cases) t.equal(withoutAccompaniments(text), core, text);
});
