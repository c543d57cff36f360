import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveColours, THEME_COLOURS, THEMES, type ThemeName } from '../../src/display/theme.ts';

/** The custom properties a rule of the stylesheet declares (the test reads the CSS; the app never does). */
function declared(css: string, selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  expect(start, selector).toBeGreaterThanOrEqual(0);
  const body = css.slice(start + selector.length + 2, css.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/--([\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1] as string, (m[2] as string).trim()]));
}

describe('the theme', () => {
  const css = readFileSync('src/styles.css', 'utf8');
  const rules: Record<ThemeName, string> = { light: ':root', dark: ":root[data-theme='dark']" };

  for (const name of ['light', 'dark'] as const) {
    it(`${name}: styles.css declares exactly the colours the SVGs are drawn with`, () => {
      expect(declared(css, rules[name])).toEqual(THEMES[name].vars);
    });
  }

  it('names every colour in both themes, each as #rrggbb', () => {
    for (const name of ['light', 'dark'] as const) {
      expect(Object.keys(THEMES[name].vars).sort()).toEqual([...THEME_COLOURS].sort());
      for (const v of Object.values(THEMES[name].vars)) expect(v).toMatch(/^#[0-9a-f]{6}$/);
    }
  });

  it('draws with the page font', () => {
    expect(/:root \{[^}]*font-family:\s*([^;]+);/.exec(css)?.[1]).toBe(THEMES.light.fontFamily);
  });

  it('resolves variables, their fallbacks and color-mix to plain colours', () => {
    expect(resolveColours('var(--panel)', THEMES.dark)).toBe('#111827');
    expect(resolveColours('var(--nothing, #d97706)', THEMES.light)).toBe('#d97706');
    expect(resolveColours('var(--warn, #d97706)', THEMES.light)).toBe('#b45309');
    // 25% of the way from #2563eb to white: each channel 0.75 × c + 0.25 × 255, rounded.
    expect(resolveColours('color-mix(in srgb, var(--accent), var(--panel) 25%)', THEMES.light)).toBe('#5c8af0');
    expect(resolveColours('var(--unknown)', THEMES.light)).toBe('var(--unknown)');
  });
});
