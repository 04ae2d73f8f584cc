#!/usr/bin/env node
// Same launcher as bin/a2a.js: run the TypeScript source through tsx (no build step).
import { tsImport } from 'tsx/esm/api'

await tsImport('../src/create.ts', import.meta.url)
