/**
 * Debian's Chromium (/usr/bin/chromium) driven by playwright-core for the inbox's browser tests:
 * no browser is ever downloaded, each launch gets a fresh profile, and nothing dials out (no
 * QUIC, no background networking, no component updates, no sync). Test support, not public API.
 * @module
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Launches Chromium; each context the tests open is a fresh, empty profile (playwright's temporary user-data-dir). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`)
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
}
