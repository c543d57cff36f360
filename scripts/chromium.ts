/**
 * How every headless run here starts Chromium: Debian's build (never a downloaded browser), and no
 * background connections — the network is closed, and they would only fail noisily.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
