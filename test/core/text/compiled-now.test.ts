import { describe, expect, it } from 'vitest';
import { compiledNow } from '../../../src/core/text/compiled-now.js';

describe('compiledNow (issue 10: a fresh process compiles each expression once, for machine code)', () => {
  it('returns the same expression, which answers as before', () => {
    const pattern = /(?<!\bsee (?:at )?)https?:\/\/[a-z]/;
    expect(compiledNow(pattern)).toBe(pattern);
    expect(pattern.exec('request to https://x.example')?.index).toBe(11);
    expect(pattern.test('see https://docs.example')).toBe(false);
    // Text of the other width (two bytes a character) runs on the same expression.
    expect(pattern.exec('请求 https://x.example')?.index).toBe(3);
  });

  it('leaves a global or sticky expression at position 0, even one that matches blanks', () => {
    const global = compiledNow(/\s+/g);
    expect(global.lastIndex).toBe(0);
    expect(global.exec('a b')?.index).toBe(1);
    const sticky = compiledNow(/ /y);
    expect(sticky.lastIndex).toBe(0);
    expect(sticky.test(' x')).toBe(true);
  });
});
