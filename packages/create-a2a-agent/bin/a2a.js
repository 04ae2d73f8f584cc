#!/usr/bin/env node
// The CLI and the workspace packages it imports are TypeScript source with no build step, so
// this launcher compiles them on the fly with tsx. tsImport scopes the loader to this import
// graph instead of registering it for the whole process.
import { tsImport } from 'tsx/esm/api'

await tsImport('../src/a2a.ts', import.meta.url)
