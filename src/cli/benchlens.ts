#!/usr/bin/env node
/**
 * The `benchlens` command (package.json `bin`, built to dist-cli/benchlens.js) and, through tsx,
 * `npm run <command>` in a checkout: both run the same dispatcher and command modules.
 */
import { dispatch } from './commands.ts';
import { runMain } from './run-main.ts';

runMain(dispatch);
