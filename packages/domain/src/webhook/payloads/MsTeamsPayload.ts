/** Microsoft Teams' MessageCard for an event (services/webhook/msteams.go). */
import type { HookEventType } from "../HookEvent.ts"
import {
  count,
  greenColor,
  list,
  pathEscapeSegments,
  releaseColor,
  releaseText,
  shortRefName,
  text,
  yellowColor
} from "./PayloadFields.ts"

interface Fact {
  readonly name: string
  readonly value: string
}

const card = (payload: unknown, title: string, body: string, target: string, color: number, fact: Fact | undefined) => ({
  "@type": "MessageCard",
  "@context": "https://schema.org/extensions",
  themeColor: color.toString(16),
  title,
  summary: title,
  sections: [{
    activityTitle: text(payload, "sender", "full_name"),
    activitySubtitle: text(payload, "sender", "login"),
    activityImage: text(payload, "sender", "avatar_url"),
    facts: [{ name: "Repository:", value: text(payload, "repository", "full_name") }, ...(fact === undefined ? [] : [fact])],
    text: body
  }],
  potentialAction: [{ "@type": "OpenUri", name: "View in Gitea", targets: [{ os: "default", uri: target }] }]
})

export type MsTeamsMessage = ReturnType<typeof card>

export const msTeamsMessage = (event: HookEventType, payload: unknown): MsTeamsMessage => {
  const repoUrl = text(payload, "repository", "html_url")
  const fullName = text(payload, "repository", "full_name")
  switch (event) {
    case "create":
    case "delete": {
      const refName = shortRefName(text(payload, "ref"))
      const refType = text(payload, "ref_type")
      return card(
        payload,
        `[${fullName}] ${refType} ${refName} ${event === "create" ? "created" : "deleted"}`,
        "",
        `${repoUrl}/src/${pathEscapeSegments(refName)}`,
        event === "create" ? greenColor : yellowColor,
        { name: `${refType}:`, value: refName }
      )
    }
    case "fork":
      return card(payload, `${text(payload, "forkee", "full_name")} is forked to ${fullName}`, "", repoUrl, greenColor, {
        name: "Forkee:",
        value: text(payload, "forkee", "full_name")
      })
    case "push": {
      const branchName = shortRefName(text(payload, "ref"))
      const total = count(payload, "total_commits")
      const commits = list(payload, "commits")
      let titleLink = total === 1 ? text(commits[0], "url") : text(payload, "compare_url")
      if (titleLink === "") titleLink = `${repoUrl}/src/${pathEscapeSegments(branchName)}`
      const body = commits.map((commit) =>
        `[${text(commit, "id").slice(0, 7)}](${text(commit, "url")}) ${text(commit, "message").replace(/[\r\n]+$/, "")} - ${text(commit, "author", "name")}`
      ).join("\n\n")
      return card(
        payload,
        `[${fullName}:${branchName}] ${total === 1 ? "1 new commit" : `${total} new commits`}`,
        body,
        titleLink,
        greenColor,
        { name: "Commit count:", value: String(total) }
      )
    }
    case "repository": {
      const action = text(payload, "action")
      return action === "created"
        ? card(payload, `[${fullName}] Repository created`, "", repoUrl, greenColor, undefined)
        : card(payload, action === "deleted" ? `[${fullName}] Repository deleted` : "", "", "", action === "deleted" ? yellowColor : 0, undefined)
    }
    case "release":
      return card(payload, releaseText(payload, (_url, label) => label), "", text(payload, "release", "html_url"), releaseColor(payload), {
        name: "Tag:",
        value: text(payload, "release", "tag_name")
      })
  }
}
