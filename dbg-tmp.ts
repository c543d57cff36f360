import { loadPaths } from './src/cli/load-paths.ts';
import { openNodeDb } from './src/engine/node-db.ts';
import { Store } from './src/engine/store.ts';
import { analyseStore } from './src/engine/analyse.ts';
import { groupIntoRuns } from './src/model/grouping.ts';
import { summarizeRuns } from './src/engine/summary.ts';
import { throughputSeries } from './src/engine/analyse.ts';
let t = performance.now();
const loaded = await loadPaths(['sample-results']);
console.log('parse', (performance.now() - t).toFixed(0));
const db = await openNodeDb();
for (let i = 0; i < 3; i++) {
t = performance.now();
const store = new Store(db);
const runs = groupIntoRuns(loaded.files);
for (const f of loaded.files) store.prepare(f);
console.log('prepare', (performance.now() - t).toFixed(0)); t = performance.now();
store.addRuns(runs);
console.log('addRuns', (performance.now() - t).toFixed(0)); t = performance.now();
summarizeRuns(store);
console.log('summaries', (performance.now() - t).toFixed(0)); t = performance.now();
throughputSeries(store);
console.log('timelines', (performance.now() - t).toFixed(0)); t = performance.now();
}
