/**
 * Slack's message for an event (services/webhook/slack.go): a text with Slack's `<url|label>`
 * links, and for pushes one attachment listing the commits.
 */
import type { SlackSettings } from "../../org/Webhook.ts"
import type { HookEventType } from "../HookEvent.ts"
import { count, list, refUrl, releaseText, shortRefName, text } from "./PayloadFields.ts"

/** SlackTextFormatter: `&`, `<`, `>` as HTML entities. */
const escape = (value: string): string => value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
const shortEscape = (value: string): string => escape(value.split("\n")[0] ?? "")
const link = (url: string, label: string): string => `<${url}|${escape(label)}>`
const refLink = (repoUrl: string, ref: string): string => link(refUrl(repoUrl, ref), shortRefName(ref))

interface SlackAttachment {
  readonly fallback: string
  readonly color: string
  readonly title: string
  readonly title_link: string
  readonly text: string
}

const message = (settings: SlackSettings | undefined, messageText: string, attachments: ReadonlyArray<SlackAttachment> | null) => ({
  channel: settings?.channel ?? "",
  text: messageText,
  username: settings?.username ?? "",
  icon_url: settings?.iconUrl ?? "",
  unfurl_links: 0,
  link_names: 0,
  attachments
})

export type SlackMessage = ReturnType<typeof message>

export const slackMessage = (settings: SlackSettings | undefined, event: HookEventType, payload: unknown): SlackMessage => {
  const repoUrl = text(payload, "repository", "html_url")
  const fullName = text(payload, "repository", "full_name")
  const sender = text(payload, "sender", "login")
  switch (event) {
    case "create":
      return message(settings, `[${fullName}:${refLink(repoUrl, text(payload, "ref"))}] ${text(payload, "ref_type")} created by ${sender}`, null)
    case "delete":
      return message(
        settings,
        `[${link(repoUrl, fullName)}:${shortRefName(text(payload, "ref"))}] ${text(payload, "ref_type")} deleted by ${sender}`,
        null
      )
    case "fork":
      return message(
        settings,
        `${link(text(payload, "forkee", "html_url"), text(payload, "forkee", "full_name"))} is forked to ${link(repoUrl, fullName)}`,
        null
      )
    case "push": {
      const total = count(payload, "total_commits")
      const description = total === 1 ? "1 new commit" : `${total} new commits`
      const compare = text(payload, "compare_url")
      const commitString = compare.length > 0 ? link(compare, description) : description
      const lines = list(payload, "commits").map((commit) =>
        `${link(text(commit, "url"), text(commit, "id").slice(0, 7))}: ${shortEscape(text(commit, "message"))} - ${escape(text(commit, "author", "name"))}`
      )
      return message(
        settings,
        `[${fullName}:${refLink(repoUrl, text(payload, "ref"))}] ${commitString} pushed by ${text(payload, "pusher", "login")}`,
        [{ fallback: "", color: settings?.color ?? "", title: repoUrl, title_link: repoUrl, text: lines.join("\n") }]
      )
    }
    case "repository": {
      const verb = text(payload, "action") === "created" ? "created" : text(payload, "action") === "deleted" ? "deleted" : ""
      return message(settings, verb === "" ? "" : `[${link(repoUrl, fullName)}] Repository ${verb} by ${sender}`, null)
    }
    case "release":
      return message(settings, `${releaseText(payload, link)} by ${sender}`, null)
  }
}
