import { chromium } from 'playwright-core';
const [,, file, prefix, w, parts] = process.argv;
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu'] });
const p = await b.newPage({ viewport: { width: Number(w||1200), height: 1400 } });
await p.goto('file://' + file);
const H = await p.evaluate(() => document.documentElement.scrollHeight);
for (let i = 0; i < Number(parts||3); i++) { if (i*1400 >= H) break; await p.screenshot({ path: `${prefix}-${i}.png`, clip: { x: 0, y: i*1400, width: Number(w||1200), height: Math.min(1400, H - i*1400) }, fullPage: true }); }
console.log('height', H);
await b.close();
