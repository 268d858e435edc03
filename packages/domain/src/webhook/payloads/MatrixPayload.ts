/**
 * Matrix's room message for an event (services/webhook/matrix.go): HTML in `formatted_body`, the
 * same as markdown-ish text in `body`, and a push's commits under `io.gitea.commits`. It is PUT to
 * the hook's URL plus a transaction id (the SHA-1 of the body), without the default headers.
 */
import type { HookEventType } from "../HookEvent.ts"
import { count, list, pathEscapeSegments, releaseText, shortRefName, text } from "./PayloadFields.ts"

/** Go's html.EscapeString. */
const escapeHtml = (value: string): string =>
  value.replaceAll("&", "&amp;").replaceAll("'", "&#39;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&#34;")

const htmlLink = (url: string, label: string): string => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`

const refLink = (repoUrl: string, ref: string): string => {
  const name = shortRefName(ref)
  const kind = ref.startsWith("refs/heads/") ? "branch" : ref.startsWith("refs/tags/") ? "tag" : "commit"
  return htmlLink(`${repoUrl}/src/${kind}/${pathEscapeSegments(name)}`, name)
}

/** getMessageBody: links as `[label](url)`, `<br>` as newlines. */
const messageBody = (html: string): string =>
  html.replace(/<a [^>]*?href="([^">]*?)">(.*?)<\/a>/g, "[$2]($1)").replaceAll("<br>", "\n")

const message = (msgType: string, html: string, commits?: ReadonlyArray<unknown>) => ({
  body: messageBody(html),
  msgtype: msgType,
  format: "org.matrix.custom.html",
  formatted_body: html,
  // `omitempty`
  ...(commits === undefined || commits.length === 0 ? {} : { "io.gitea.commits": commits })
})

export type MatrixMessage = ReturnType<typeof message>

/** `msgType`: the hook's message type (`m.notice`, `m.text`; "" when unset, as for hooks made through the API). */
export const matrixMessage = (msgType: string, event: HookEventType, payload: unknown): MatrixMessage => {
  const repoUrl = text(payload, "repository", "html_url")
  const fullName = text(payload, "repository", "full_name")
  const sender = text(payload, "sender", "login")
  switch (event) {
    case "create":
      return message(msgType, `[${fullName}:${refLink(repoUrl, text(payload, "ref"))}] ${text(payload, "ref_type")} created by ${sender}`)
    case "delete":
      return message(
        msgType,
        `[${htmlLink(repoUrl, fullName)}:${shortRefName(text(payload, "ref"))}] ${text(payload, "ref_type")} deleted by ${sender}`
      )
    case "fork":
      return message(
        msgType,
        `${htmlLink(text(payload, "forkee", "html_url"), text(payload, "forkee", "full_name"))} is forked to ${htmlLink(repoUrl, fullName)}`
      )
    case "push": {
      const total = count(payload, "total_commits")
      const commits = list(payload, "commits")
      const lines = commits.map((commit) =>
        `${htmlLink(text(commit, "url"), text(commit, "id").slice(0, 7))}: ${text(commit, "message")} - ${text(commit, "author", "name")}`
      )
      const head = `[${fullName}] ${text(payload, "pusher", "login")} pushed ${total === 1 ? "1 commit" : `${total} commits`} to ${
        escapeHtml(shortRefName(text(payload, "ref")))
      }:<br>`
      return message(msgType, head + lines.join("<br>"), commits)
    }
    case "repository": {
      const action = text(payload, "action")
      const verb = action === "created" || action === "deleted" ? action : ""
      return message(msgType, verb === "" ? "" : `[${htmlLink(repoUrl, fullName)}] Repository ${verb} by ${sender}`)
    }
    case "release":
      return message(msgType, `${releaseText(payload, htmlLink)} by ${sender}`)
  }
}
