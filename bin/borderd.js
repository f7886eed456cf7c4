#!/usr/bin/env node
// The CLI entry: everything lives in the compiled sources (`npm run build` writes dist/).
import('../dist/src/cli/main.js').then((m) => m.main(process.argv.slice(2)));
