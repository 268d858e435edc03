/**
 * Discord's message for an event (services/webhook/discord.go): one embed with a title, a
 * description, a link, a color and the sender as author. Lengths count runes, as Go's do.
 */
import type { HookEventType } from "../HookEvent.ts"
import {
  count,
  greenColor,
  list,
  pathEscapeSegments,
  redColor,
  releaseColor,
  releaseText,
  shortRefName,
  text
} from "./PayloadFields.ts"

const runes = (value: string): Array<string> => [...value]
/** Go's `fmt.Sprintf("%.Ns", value)`: the first N runes. */
const firstRunes = (value: string, n: number): string => runes(value).slice(0, n).join("")

const orderedList = /(\d+)\./g
// Go ranges over a map here; the three patterns do not overlap in what they change.
const markdownPatterns: ReadonlyArray<readonly [string, RegExp]> = [
  ["~", /~(.*?)~/g],
  ["*", /\*(.*?)\*/g],
  ["_", /_(.*?)_/g]
]
// strings.NewReplacer: at each position the first of these that matches, in this order.
const toEscape: ReadonlyArray<readonly [string, string]> = [
  ["* ", "\\* "], ["`", "\\`"], ["[", "\\["], ["]", "\\]"], ["(", "\\("], [")", "\\)"], ["#", "\\#"], ["+ ", "\\+ "],
  ["- ", "\\- "], ["---", "\\---"], ["!", "\\!"], ["|", "\\|"], ["<", "\\<"], [">", "\\>"]
]

/** Forgejo's escapeMarkdown. */
export const escapeMarkdown = (input: string): string => {
  let output = input.replace(orderedList, "$1\\.")
  for (const [char, pattern] of markdownPatterns) output = output.replace(pattern, `\\${char}$1\\${char}`)
  let escaped = ""
  for (let i = 0; i < output.length;) {
    const match = toEscape.find(([from]) => output.startsWith(from, i))
    if (match === undefined) {
      escaped += output[i] ?? ""
      i++
    } else {
      escaped += match[1]
      i += match[0].length
    }
  }
  return escaped
}

export interface DiscordSettings {
  readonly username: string
  readonly iconUrl: string
}

const DESCRIPTION_LIMIT = 2000

const message = (settings: DiscordSettings, payload: unknown, rawTitle: string, rawText: string, url: string, color: number) => {
  const title = runes(rawTitle).length > 256 ? `${firstRunes(rawTitle, 253)}...` : rawTitle
  const body = runes(rawText).length > 4096 ? `${firstRunes(rawText, 4093)}...` : rawText
  return {
    username: settings.username,
    // `omitempty`
    ...(settings.iconUrl === "" ? {} : { avatar_url: settings.iconUrl }),
    embeds: [{
      title,
      description: runes(body).length < DESCRIPTION_LIMIT ? body : firstRunes(body, DESCRIPTION_LIMIT),
      url,
      color,
      footer: {},
      author: {
        name: text(payload, "sender", "login"),
        // setting.AppURL + login: the sender's html_url.
        url: text(payload, "sender", "html_url"),
        icon_url: text(payload, "sender", "avatar_url")
      }
    }]
  }
}

export type DiscordMessage = ReturnType<typeof message>

export const discordMessage = (settings: DiscordSettings, event: HookEventType, payload: unknown): DiscordMessage => {
  const repoUrl = text(payload, "repository", "html_url")
  const fullName = text(payload, "repository", "full_name")
  switch (event) {
    case "create":
    case "delete": {
      const refName = shortRefName(text(payload, "ref"))
      const verb = event === "create" ? "created" : "deleted"
      return message(
        settings,
        payload,
        `[${fullName}] ${text(payload, "ref_type")} ${refName} ${verb}`,
        "",
        `${repoUrl}/src/${pathEscapeSegments(refName)}`,
        event === "create" ? greenColor : redColor
      )
    }
    case "fork":
      return message(settings, payload, `${text(payload, "forkee", "full_name")} is forked to ${fullName}`, "", repoUrl, greenColor)
    case "push": {
      const branchName = shortRefName(text(payload, "ref"))
      const total = count(payload, "total_commits")
      const commits = list(payload, "commits")
      let titleLink = total === 1 ? text(commits[0], "url") : text(payload, "compare_url")
      if (titleLink === "") titleLink = `${repoUrl}/src/${pathEscapeSegments(branchName)}`
      const description = commits.map((commit) => {
        // Forgejo's SplitN(message, "\n", 1) keeps the whole message; only "\r" is trimmed.
        let summary = escapeMarkdown(text(commit, "message").replace(/\r+$/, ""))
        if (runes(summary).length > 50) summary = `${firstRunes(summary, 47)}...`
        return `[${text(commit, "id").slice(0, 7)}](${text(commit, "url")}) ${summary} - ${text(commit, "author", "name")}`
      }).join("\n")
      return message(settings, payload, `[${fullName}:${branchName}] ${total === 1 ? "1 new commit" : `${total} new commits`}`, description, titleLink, greenColor)
    }
    case "repository":
      return text(payload, "action") === "created"
        ? message(settings, payload, `[${fullName}] Repository created`, "", repoUrl, greenColor)
        : text(payload, "action") === "deleted"
        ? message(settings, payload, `[${fullName}] Repository deleted`, "", "", redColor)
        : message(settings, payload, "", "", "", 0)
    case "release":
      return message(
        settings,
        payload,
        releaseText(payload, (_url, label) => label),
        text(payload, "release", "body"),
        text(payload, "release", "html_url"),
        releaseColor(payload)
      )
  }
}
