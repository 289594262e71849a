// median: odd and even counts, unsorted input left as it was, empty list.
import { describe, expect, it } from 'vitest';
import { median } from '../../../src/util/median';

describe('median', () => {
  it('takes the middle figure, or the mean of the middle two, without sorting its input', () => {
    const xs = [5, 1, 3];
    expect(median(xs)).toBe(3);
    expect(xs).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });
});
