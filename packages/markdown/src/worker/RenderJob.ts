/**
 * One render job, in a render process or its deep-stack thread. A render that throws answers the
 * escaped text instead, as Forgejo falls back to the raw input when goldmark panics; a stack
 * overflow is told apart, so the process can try again on a deeper stack.
 */
import { renderMarkdown } from "../Pipeline.ts"
import type { RenderJob, WorkerMessage } from "./RenderMessages.ts"

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;")

export type JobResult =
  | { readonly _tag: "Answered"; readonly message: WorkerMessage }
  | { readonly _tag: "StackOverflow" }

export const renderJob = (job: RenderJob): JobResult => {
  try {
    return { _tag: "Answered", message: { _tag: "Rendered", id: job.id, html: renderMarkdown(job.request, new Set(job.mentionable)) } }
  } catch (error) {
    if (error instanceof RangeError && error.message.includes("call stack")) return { _tag: "StackOverflow" }
    return { _tag: "Answered", message: { _tag: "Rendered", id: job.id, html: `<p>${escapeHtml(job.request.text)}</p>\n`, failure: String(error) } }
  }
}

/** The answer on a stack as deep as it gets: the escaped text if even that overflows. */
export const renderJobOnDeepestStack = (job: RenderJob): WorkerMessage => {
  const result = renderJob(job)
  return result._tag === "Answered"
    ? result.message
    : { _tag: "Rendered", id: job.id, html: `<p>${escapeHtml(job.request.text)}</p>\n`, failure: "RangeError: Maximum call stack size exceeded" }
}
