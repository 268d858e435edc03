/**
 * One render job, in a render thread. A render that throws (say, a stack overflow on absurd nesting)
 * answers the escaped text instead, as Forgejo falls back to the raw input when goldmark panics. An
 * answer longer than MAX_HTML_CHARS is not sent: a few KB of reference links can expand to hundreds
 * of MB of HTML, which the server would hold several copies of.
 */
import { renderMarkdown } from "../Pipeline.ts"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

/** 16 Mi characters: a 1 MiB README renders to ~1.4 MB. */
export const MAX_HTML_CHARS = 16 * 1024 * 1024

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;")

export const renderJob = (job: RenderJob): WorkerMessage => {
  let html: string
  let failure: string | undefined
  try {
    html = renderMarkdown(job.request, new Set(job.mentionable))
  } catch (error) {
    html = `<p>${escapeHtml(job.request.text)}</p>\n`
    failure = String(error)
  }
  if (html.length > MAX_HTML_CHARS) return { _tag: "TooLarge", id: job.id }
  return failure === undefined ? { _tag: "Rendered", id: job.id, html } : { _tag: "Rendered", id: job.id, html, failure }
}
