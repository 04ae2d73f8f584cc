#!/usr/bin/env node
// `a2a`: src/a2a.ts, from its build in dist/ (see launch.js).
import { launch } from './launch.js'

await launch('a2a')
