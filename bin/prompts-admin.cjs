#!/usr/bin/env node
// The `prompts-admin` bin: runs bin/admin.ts through tsx, as `npm run admin` does.
require('tsx/cjs/api').register();
require('./admin.ts');
