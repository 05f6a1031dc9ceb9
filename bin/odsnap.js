#!/usr/bin/env node
// The odsnap command. Sources are TypeScript run through tsx, so a clone works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
