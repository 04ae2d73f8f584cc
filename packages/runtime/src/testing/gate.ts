/** A promise a test opens by hand: park a skill handler, a store call or a receiver until then. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}
