/**
 * The inbox's stylesheet and script, served from the runtime under the inbox's path (no build
 * step, no inline code, so the pages' Content-Security-Policy allows only this origin's files).
 * The script only adds live updates: every page works without it.
 * @module
 */

export const INBOX_CSS = `
:root { color-scheme: light dark; --accent: #1f5fbf; --muted: #5f6368; --line: #c8ccd0; }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header .brand { margin: 0; font-weight: 700; }
main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 0; }
a { color: var(--accent); }
.tasks, .history, .artifacts { list-style: none; padding: 0; margin: 0; }
.task, .message { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; margin: 0 0 .75rem; }
.task[data-state="TASK_STATE_INPUT_REQUIRED"], .task[data-state="TASK_STATE_AUTH_REQUIRED"] { border-left: .35rem solid var(--accent); }
.message.agent { background: color-mix(in srgb, var(--accent) 8%, transparent); }
.who, .meta { color: var(--muted); font-size: .9rem; margin: .25rem 0; }
.question { font-weight: 600; margin: .5rem 0; white-space: pre-wrap; }
.state { font-weight: 600; }
.answer { display: grid; gap: .4rem; margin: .5rem 0; }
label { font-weight: 600; }
textarea { width: 100%; font: inherit; padding: .5rem; border: 1px solid var(--muted); border-radius: .35rem; }
button { justify-self: start; font: inherit; padding: .45rem 1rem; min-height: 2.75rem; border-radius: .35rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
.sign-out { display: flex; gap: .75rem; align-items: center; margin: 0; }
.sign-out button { background: transparent; color: inherit; border-color: var(--muted); }
:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.error { color: #b00020; font-weight: 600; margin: 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); border-radius: .35rem; padding: .75rem; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: Canvas; padding: .25rem .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.empty { color: var(--muted); }
`

export const INBOX_JS = `(() => {
  if (!window.EventSource) return
  const detail = document.getElementById('task-detail')
  if (!detail && !document.getElementById('waiting')) return
  const base = document.querySelector('link[rel="stylesheet"]').getAttribute('href').replace(/\\/inbox\\.css$/, '')
  // What changed between reading the page's tasks and this feed's start comes first.
  const since = 'since=' + encodeURIComponent(document.getElementById('main').dataset.readAt || '')
  const source = new EventSource(base + '/events?' + since + (detail ? '&task=' + encodeURIComponent(detail.dataset.task) : ''))
  const live = document.getElementById('live')
  const parse = (markup) => {
    const template = document.createElement('template')
    template.innerHTML = markup
    return template.content.firstElementChild
  }
  // What the person typed, and where their focus was, survive the task's redraw. An answer being
  // written stays even when someone else answered first: it joins the conversation when sent.
  const replace = (current, fresh, list) => {
    const typed = current.querySelector('textarea')
    const next = fresh.querySelector('textarea')
    if (typed && next && typed.value) next.value = typed.value
    else if (typed && typed.value) fresh.querySelector('.meta').after(typed.form)
    const focused = current.contains(document.activeElement) && document.activeElement.name
    if (!list || current.parentElement === list) current.replaceWith(fresh)
    else {
      const from = current.parentElement
      current.remove()
      list.prepend(fresh)
      settle(from)
    }
    if (focused) fresh.querySelector('[name="' + focused + '"]')?.focus()
  }
  const settle = (list) => {
    const empty = list.querySelector('.empty')
    if (list.querySelector('.task')) empty?.remove()
    else if (!empty) {
      const item = document.createElement('li')
      item.className = 'empty'
      item.textContent = list.dataset.empty
      list.append(item)
    }
  }
  source.addEventListener('task', (event) => {
    const change = JSON.parse(event.data)
    const fresh = parse(change.html)
    if (detail) {
      replace(document.getElementById('task-detail'), fresh)
    } else {
      const current = document.getElementById('task-' + change.id)
      const list = document.getElementById(change.waiting ? 'waiting' : 'recent')
      if (current) replace(current, fresh, list)
      else list.prepend(fresh)
      settle(list)
    }
    live.textContent = change.announce
  })
  source.addEventListener('resync', () => location.reload())
})()
`
