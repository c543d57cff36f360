/**
 * The app's colours, light and dark, as the one source the chart SVGs are drawn with (the app's
 * export, the `chart` CLI and the report). `src/styles.css` declares the same custom properties for
 * the page; tests/unit/theme.test.ts holds the two to the same values.
 */

export type ThemeName = 'light' | 'dark';

export const THEME_COLOURS = ['bg', 'panel', 'text', 'muted', 'border', 'grid', 'axis', 'accent', 'fail', 'pass', 'warn', 'bound', 'on-accent'] as const;
export type ThemeColour = (typeof THEME_COLOURS)[number];

export interface Theme {
  /** Each colour as `#rrggbb`, by its custom property's name without `--`. */
  vars: Readonly<Record<ThemeColour, string>>;
  fontFamily: string;
}

const FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

export const THEMES: Readonly<Record<ThemeName, Theme>> = {
  light: {
    vars: {
      bg: '#f8fafc',
      panel: '#ffffff',
      text: '#0f172a',
      muted: '#64748b',
      border: '#e2e8f0',
      grid: '#e2e8f0',
      axis: '#94a3b8',
      accent: '#2563eb',
      fail: '#dc2626',
      pass: '#15803d',
      warn: '#b45309',
      bound: '#7c3aed',
      'on-accent': '#ffffff',
    },
    fontFamily: FONT_FAMILY,
  },
  dark: {
    vars: {
      bg: '#0b1120',
      panel: '#111827',
      text: '#e5e7eb',
      muted: '#94a3b8',
      border: '#1f2937',
      grid: '#1f2937',
      axis: '#475569',
      accent: '#60a5fa',
      fail: '#f87171',
      pass: '#4ade80',
      warn: '#fbbf24',
      bound: '#a78bfa',
      'on-accent': '#0b1120',
    },
    fontFamily: FONT_FAMILY,
  },
};

function hex(colour: string): [number, number, number] | null {
  const m = /^#([0-9a-f]{6})$/i.exec(colour.trim());
  if (!m) return null;
  const n = parseInt(m[1] as string, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * CSS variables to the theme's values (a fallback, `var(--x, #hex)`, where the theme has none), and
 * `color-mix(in srgb, A, B p%)` (how the charts shade runs) to the colour it names: an SVG file has
 * no stylesheet, and SVG viewers know no color-mix.
 */
export function resolveColours(value: string, theme: Theme): string {
  const vars: Readonly<Record<string, string>> = theme.vars;
  const substituted = value.replace(/var\(--([\w-]+)(?:\s*,\s*([^()]+?))?\s*\)/g, (m, name: string, fallback: string | undefined) => vars[name] ?? fallback ?? m);
  return substituted.replace(/color-mix\(in srgb,\s*([^,()]+),\s*([^,()]+?)\s+([\d.]+)%\)/g, (m, a: string, b: string, pct: string) => {
    const from = hex(a);
    const to = hex(b);
    if (!from || !to) return m;
    const f = Number(pct) / 100;
    return `#${from.map((c, i) => Math.round(c * (1 - f) + (to[i] as number) * f).toString(16).padStart(2, '0')).join('')}`;
  });
}
