#!/usr/bin/env node
// `create-a2a-agent`: src/create.ts, from its build in dist/ (see launch.js).
import { launch } from './launch.js'

await launch('create')
