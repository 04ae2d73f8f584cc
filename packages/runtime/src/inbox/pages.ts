/**
 * The inbox's pages, rendered on the server with hono's `html` tagged template (every value
 * escaped unless it is itself rendered HTML): no build step, nothing to hydrate. One heading
 * outline per page, a skip link, labelled fields, native controls in reading order (so the
 * keyboard reaches everything in order), an `aria-live` region that announces live changes, and
 * a single-column layout that reads on a phone.
 * @module
 */
import { randomUUID } from 'node:crypto'
import { html } from 'hono/html'
import type { Artifact, Message, Part, Task, TaskState } from '../wire/types.js'
import type { TaskView } from './agents.js'

export type Html = ReturnType<typeof html>

export interface PageContext {
  /** The inbox's base path, e.g. `/inbox`. */
  path: string
  csrf: string
  /** The signed-in person's id; absent on the sign-in pages. */
  owner?: string
  /** When the page's tasks were read (RFC 3339): its live feed first sends what changed since. */
  readAt?: string
}

const STATE_LABELS: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: 'Submitted',
  TASK_STATE_WORKING: 'Working',
  TASK_STATE_COMPLETED: 'Completed',
  TASK_STATE_FAILED: 'Failed',
  TASK_STATE_CANCELED: 'Canceled',
  TASK_STATE_INPUT_REQUIRED: 'Needs your answer',
  TASK_STATE_REJECTED: 'Rejected',
  TASK_STATE_AUTH_REQUIRED: 'Needs you to sign in',
}

export const stateLabel = (state: TaskState): string => STATE_LABELS[state] ?? state

const isWaiting = (task: Task) => task.status.state === 'TASK_STATE_INPUT_REQUIRED' || task.status.state === 'TASK_STATE_AUTH_REQUIRED'

/** The text of a message's text parts (data parts as JSON). */
export const messageText = (message: Message | undefined): string =>
  (message?.parts ?? [])
    .map((part) => ('text' in part ? part.text : 'data' in part ? JSON.stringify(part.data) : ''))
    .filter(Boolean)
    .join('\n')

export async function render(page: Html): Promise<string> {
  return String(await page)
}

export function layout(context: PageContext, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${context.path}/inbox.css">
<script src="${context.path}/inbox.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<p class="brand"><a href="${context.path}">Inbox</a></p>
${
  context.owner === undefined
    ? ''
    : html`<form method="post" action="${context.path}/sign-out" class="sign-out">
<input type="hidden" name="csrf" value="${context.csrf}">
<span>Signed in as <strong>${context.owner}</strong></span>
<button type="submit">Sign out</button>
</form>`
}
</header>
<main id="main" tabindex="-1"${context.readAt ? html` data-read-at="${context.readAt}"` : ''}>
${body}
</main>
<div id="live" class="visually-hidden" role="status" aria-live="polite"></div>
</body>
</html>`
}

/** One task in the list: what it is, where it stands, the question and the answer form when it waits. */
export function taskItem(context: PageContext, view: TaskView, answer?: AnswerState): Html {
  const { task } = view
  const headingId = `task-${task.id}-title`
  return html`<li id="task-${task.id}" class="task" data-state="${task.status.state}" aria-labelledby="${headingId}">
<h3 id="${headingId}"><a href="${context.path}/tasks/${task.id}">${view.skill || 'Task'} · ${view.agent.name}</a></h3>
<p class="meta"><span class="state state-${stateClass(task.status.state)}">${stateLabel(task.status.state)}</span> <time datetime="${task.status.timestamp ?? ''}">${timeText(task.status.timestamp)}</time></p>
${statusMessage(task)}
${isWaiting(task) ? answerForm(context, task, answer) : ''}
${artifactList(context, task)}
</li>`
}

export interface AnswerState {
  /** What the person typed, kept when the answer could not be sent. */
  text?: string
  error?: string
}

function statusMessage(task: Task): Html | '' {
  const text = messageText(task.status.message)
  if (!text) return ''
  return html`<p class="question">${isWaiting(task) ? html`<span class="visually-hidden">The agent asks: </span>` : ''}${text}</p>`
}

export function answerForm(context: PageContext, task: Task, answer: AnswerState = {}): Html {
  const field = `answer-${task.id}`
  const errorId = `${field}-error`
  return html`<form method="post" action="${context.path}/tasks/${task.id}/answer" class="answer">
<input type="hidden" name="csrf" value="${context.csrf}">
<input type="hidden" name="messageId" value="${randomUUID()}">
<label for="${field}">Your answer</label>
${answer.error ? html`<p id="${errorId}" class="error" role="alert">${answer.error}</p>` : ''}
<textarea id="${field}" name="text" rows="3" required${answer.error ? html` aria-invalid="true" aria-describedby="${errorId}"` : ''}>${answer.text ?? ''}</textarea>
<button type="submit">Send answer</button>
</form>`
}

function artifactList(context: PageContext, task: Task): Html | '' {
  if (!task.artifacts?.length) return ''
  return html`<ul class="artifacts" aria-label="Work products">
${task.artifacts.map((artifact) => html`<li><a href="${artifactUrl(context.path, task.id, artifact.artifactId)}">${artifact.name || artifact.artifactId}</a></li>`)}
</ul>`
}

export const artifactUrl = (path: string, taskId: string, artifactId: string): string => `${path}/tasks/${encodeURIComponent(taskId)}/artifacts/${encodeURIComponent(artifactId)}`

export function listPage(context: PageContext, waiting: TaskView[], recent: TaskView[]): Html {
  return layout(
    context,
    'Inbox',
    html`<h1>Inbox</h1>
<section aria-labelledby="waiting-title">
<h2 id="waiting-title">Waiting for you</h2>
<ul id="waiting" class="tasks" data-empty="Nothing is waiting for you.">
${waiting.length ? waiting.map((view) => taskItem(context, view)) : html`<li class="empty">Nothing is waiting for you.</li>`}
</ul>
</section>
<section aria-labelledby="recent-title">
<h2 id="recent-title">Recent tasks</h2>
<ul id="recent" class="tasks" data-empty="No recent tasks.">
${recent.length ? recent.map((view) => taskItem(context, view)) : html`<li class="empty">No recent tasks.</li>`}
</ul>
</section>`,
  )
}

/** The task's own page: where it stands, the answer form, the whole conversation and the work products. */
export function taskDetail(context: PageContext, view: TaskView, answer?: AnswerState): Html {
  const { task } = view
  return html`<div id="task-detail" data-task="${task.id}" data-state="${task.status.state}">
<h1>${view.skill || 'Task'} · ${view.agent.name}</h1>
<p class="meta"><span class="state state-${stateClass(task.status.state)}">${stateLabel(task.status.state)}</span> <time datetime="${task.status.timestamp ?? ''}">${timeText(task.status.timestamp)}</time></p>
${statusMessage(task)}
${isWaiting(task) ? answerForm(context, task, answer) : ''}
<h2>Conversation</h2>
<ol class="history">
${(task.history ?? []).map((message) => html`<li class="message ${message.role === 'ROLE_AGENT' ? 'agent' : 'user'}"><p class="who">${message.role === 'ROLE_AGENT' ? view.agent.name : 'Asked or answered'}</p><p>${messageText(message)}</p></li>`)}
</ol>
<h2>Work products</h2>
${task.artifacts?.length ? artifactList(context, task) : html`<p>None yet.</p>`}
</div>`
}

export function taskPage(context: PageContext, view: TaskView, answer?: AnswerState): Html {
  return layout(context, `${view.skill || 'Task'} · Inbox`, html`<p><a href="${context.path}">Back to the inbox</a></p>${taskDetail(context, view, answer)}`)
}

/** An artifact: its text shown, its data as JSON, each file a download link. */
export function artifactPage(context: PageContext, view: TaskView, artifact: Artifact): Html {
  const base = artifactUrl(context.path, view.task.id, artifact.artifactId)
  return layout(
    context,
    `${artifact.name || 'Work product'} · Inbox`,
    html`<p><a href="${context.path}/tasks/${view.task.id}">Back to the task</a></p>
<h1>${artifact.name || 'Work product'}</h1>
${artifact.description ? html`<p>${artifact.description}</p>` : ''}
${artifact.parts.map((part, index) => partView(part, `${base}/${index}`))}`,
  )
}

function partView(part: Part, url: string): Html {
  if ('text' in part) return html`<pre class="artifact-text">${part.text}</pre>`
  if ('data' in part) return html`<pre class="artifact-data">${JSON.stringify(part.data, null, 2)}</pre>`
  const name = ('filename' in part && part.filename) || 'file'
  return html`<p><a href="${url}" download>Download ${name}</a> <span class="meta">(${('mediaType' in part && part.mediaType) || 'application/octet-stream'})</span></p>`
}

/** A page that only says something: a refused link, a missing task, sign-in needed. */
export function messagePage(context: PageContext, title: string, text: string, extra: Html | '' = ''): Html {
  return layout(context, title, html`<h1>${title}</h1><p>${text}</p>${extra}`)
}

export function signInPage(context: PageContext, token: string): Html {
  return layout(
    context,
    'Sign in · Inbox',
    html`<h1>Sign in to your inbox</h1>
<p>This link signs you in once. Continue to open your inbox.</p>
<form method="post" action="${context.path}/sign-in">
<input type="hidden" name="token" value="${token}">
<button type="submit">Sign in</button>
</form>`,
  )
}

const stateClass = (state: TaskState) => state.replace('TASK_STATE_', '').toLowerCase().replace('_', '-')

const timeText = (timestamp: string | undefined): string => (timestamp ? new Date(timestamp).toUTCString() : '')
