import { useEffect, useState } from 'react';
import type { ChartQuery, ChartResult } from '../engine/chart-queries.ts';
import type { EngineClient } from '../engine/client.ts';

/**
 * Runs a chart's query in the worker whenever its query changes; keeps the last result while the next
 * one is computed and reports how long the worker took (the re-query time users feel). A result of
 * other data (before `version` changed: a load, a regrouping) is not kept: drawn under the new
 * data's names it would show numbers that are not theirs.
 */
export function useChartQuery<K extends ChartQuery['kind']>(client: EngineClient | null, query: Extract<ChartQuery, { kind: K }> | null, version: unknown) {
  const [state, setState] = useState<{ result: Extract<ChartResult, { kind: K }> | null; ms: number | null; error: string | null; version: unknown }>({ result: null, ms: null, error: null, version });
  const key = JSON.stringify(query);
  useEffect(() => {
    if (!client || !query) return;
    let live = true;
    const t0 = performance.now();
    client.chart(query).then(
      (r) => live && setState({ result: r as Extract<ChartResult, { kind: K }>, ms: performance.now() - t0, error: null, version }),
      (e: unknown) => live && setState((s) => ({ ...s, result: s.version === version ? s.result : null, error: e instanceof Error ? e.message : String(e), version })),
    );
    return () => {
      live = false;
    };
    // `key` stands for `query`'s content; `version` changes when the dataset does.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, version]);
  return state.version === version ? state : { result: null, ms: null, error: null, version };
}
