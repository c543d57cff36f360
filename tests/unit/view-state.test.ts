import { describe, expect, it } from 'vitest';
import { decodeState, DEFAULT_STATE, encodeState, isLoadableReference, shownTheme, type ViewState } from '../../src/state/view-state.ts';

describe('view state in the URL fragment', () => {
  it('the default view is an empty fragment', () => {
    expect(encodeState(DEFAULT_STATE)).toBe('');
    expect(decodeState('').state).toEqual(DEFAULT_STATE);
  });

  it('a link without a theme shows the system\'s colours; one chosen with the toggle is kept in the link', () => {
    expect(decodeState('#chart=throughput&v=2').state.theme).toBe('system');
    expect(shownTheme('system', true)).toBe('dark');
    expect(shownTheme('system', false)).toBe('light');
    // Chosen against the system's preference: kept, both ways.
    expect(shownTheme('light', true)).toBe('light');
    expect(shownTheme('dark', false)).toBe('dark');
    for (const theme of ['light', 'dark'] as const) {
      const fragment = encodeState({ ...DEFAULT_STATE, theme });
      expect(fragment).toBe(`theme=${theme}&v=2`);
      expect(decodeState(`#${fragment}`).state.theme).toBe(theme);
    }
    expect(encodeState({ ...DEFAULT_STATE, theme: 'system' })).toBe('');
  });

  it('round-trips every field, leaving defaults out', () => {
    const state: ViewState = {
      ...DEFAULT_STATE,
      files: ['sample-results/a/client1-READ.hdr', 'https://example.org/r/b.hdr'],
      chart: 'throughput',
      percentile: 99.9,
      op: 'READ',
      xAxis: 'utilisation',
      capacity: { ScyllaDB: 120000 },
      sla: 'p95 of READ <= 10 ms',
      includeFailed: true,
      theme: 'dark',
      window: { fromS: 10, toS: null },
      focus: ['run/a'],
      events: '30,node added',
      cost: { itemBytes: 2000, consistency: 'eventual', nodes: 3, nodeHourly: 2.5, prices: 'before-2024-11' },
      runs: { 'run/a': { system: 'ScyllaDB <b>', nodes: 3, hidden: true, build: '1.2.3', commit: 'ab12f' } },
      regroup: { 'all/client1-READ.hdr': 'all#2' },
      history: { order: 'pattern:nightly-*-{}', op: 'READ', stat: 'p99.9' },
      view: 'overview',
      series: ['GET /a?x=1,2', 'POST /b'],
    };
    const fragment = encodeState(state);
    expect(decodeState(`#${fragment}`)).toEqual({ state, notices: [] });
    expect(fragment).toContain('v=2');
    expect(encodeState({ ...DEFAULT_STATE, chart: 'cost' })).toBe('chart=cost&v=2');
  });

  it('keeps the History view\'s order and selection, and refuses an order it cannot read', () => {
    expect(decodeState('#history={"order":"label:build"}&v=2').state.history).toEqual({ order: 'label:build' });
    const bad = decodeState('#history={"order":"pattern:no-key"}&v=2');
    expect(bad.state.history).toBeNull();
    expect(bad.notices).toEqual(["the history view's order in the link is malformed and was ignored"]);
    expect(decodeState('#history={"order":"name","extra":1}&v=2').state.history).toBeNull();
  });

  it('falls back to defaults with a notice for bad values', () => {
    const { state, notices } = decodeState('#chart=pie&p=120&x=sideways&theme=neon&runs=%7Bbad&cost=%7B%22itemBytes%22%3A-1%7D&window=30-10&view=gallery&series=%5B1%5D&v=2');
    expect(state).toEqual(DEFAULT_STATE);
    expect(notices).toHaveLength(9);
  });

  it('upgrades v1 links: they priced DynamoDB at the list prices before 1 Nov 2024, and keep them', () => {
    expect(decodeState('#chart=cost&v=1').state.cost).toEqual({ prices: 'before-2024-11' });
    expect(decodeState('#chart=cost&cost=%7B%22nodes%22%3A3%7D&v=1').state.cost).toEqual({ nodes: 3, prices: 'before-2024-11' });
    expect(decodeState('#embed=cost&v=1').state.cost).toEqual({ prices: 'before-2024-11' });
    // A v1 link that neither shows nor sets the cost chart is left as it is; a v2 link without a
    // preset means today's prices.
    expect(decodeState('#chart=throughput&v=1').state.cost).toEqual({});
    expect(decodeState('#chart=cost&v=2').state.cost).toEqual({});
    const { state, notices } = decodeState('#cost=%7B%22prices%22%3A%222019%22%7D&v=2');
    expect(state.cost).toEqual({});
    expect(notices).toEqual(['cost parameters in the link are malformed and were ignored']);
  });

  it('refuses links of a version it does not know, and upgrades none silently', () => {
    const { state, notices } = decodeState('#v=99&chart=cost');
    expect(state).toEqual(DEFAULT_STATE);
    expect(notices[0]).toMatch(/version/);
  });

  it('loads only relative paths and http(s) URLs', () => {
    expect(isLoadableReference('sample-results/a.hdr')).toBe(true);
    expect(isLoadableReference('https://host/a.hdr')).toBe(true);
    for (const bad of ['javascript:alert(1)', 'data:text/plain,x', 'file:///etc/passwd', '//evil.example/a']) expect(isLoadableReference(bad)).toBe(false);
    const { state, notices } = decodeState('#files=a.hdr,javascript:alert(1)');
    expect(state.files).toEqual(['a.hdr']);
    expect(notices).toHaveLength(1);
  });

  it('embeds one chart: validated against the chart ids, round-tripped, written last', () => {
    const state: ViewState = { ...DEFAULT_STATE, files: ['sample-results/a/client1-READ.hdr'], theme: 'dark', embed: 'throughput' };
    const fragment = encodeState(state);
    expect(fragment).toBe('files=sample-results/a/client1-READ.hdr&theme=dark&v=2&embed=throughput');
    expect(decodeState(`#${fragment}`)).toEqual({ state, notices: [] });
    expect(encodeState({ ...DEFAULT_STATE, embed: 'cost' })).toBe('v=2&embed=cost');
    expect(decodeState('#embed=cost').state).toEqual({ ...DEFAULT_STATE, embed: 'cost' });

    for (const bad of ['pie', '', 'Throughput', '<script>']) {
      const { state: decoded, notices } = decodeState(`#embed=${encodeURIComponent(bad)}&v=2`);
      expect(decoded.embed).toBeNull();
      expect(notices).toEqual([`unknown chart to embed "${bad}"`]);
    }
  });
});
