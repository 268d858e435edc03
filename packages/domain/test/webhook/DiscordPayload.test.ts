/**
 * Discord's messages, with the expected values of Forgejo's services/webhook/discord_test.go for
 * the events Kiln sends (fixtures as general_test.go builds them).
 */
import { describe, expect, it } from "vitest"
import { discordMessage, escapeMarkdown } from "../../src/webhook/payloads/DiscordPayload.ts"

const settings = { username: "", iconUrl: "" }
const sha = "2020558fe2e34debb818a514715839cabd25e778"
const repository = { html_url: "http://localhost:3000/test/repo", full_name: "test/repo" }
const sender = { login: "user1", html_url: "http://localhost:3000/user1", avatar_url: "http://localhost:3000/user1/avatar" }
const commitWith = (message: string) => ({
  id: sha,
  message,
  url: `http://localhost:3000/test/repo/commit/${sha}`,
  author: { name: "user1", email: "user1@localhost", username: "user1" }
})
const push = (message: string) => ({
  ref: "refs/heads/test", compare_url: "", commits: [commitWith(message), commitWith(message)], total_commits: 2,
  repository, pusher: sender, sender
})
const embed = (value: ReturnType<typeof discordMessage>) => value.embeds[0]

describe("Discord payloads (Forgejo's TestDiscordPayload)", () => {
  it("Create", () => {
    const e = embed(discordMessage(settings, "create", { ref: "refs/heads/test", ref_type: "branch", sha, repository, sender }))
    expect([e?.title, e?.description, e?.url]).toEqual(["[test/repo] branch test created", "", "http://localhost:3000/test/repo/src/test"])
    expect(e?.author).toEqual({ name: "user1", url: "http://localhost:3000/user1", icon_url: "http://localhost:3000/user1/avatar" })
  })

  it("Delete", () => {
    const e = embed(discordMessage(settings, "delete", { ref: "test", ref_type: "branch", pusher_type: "user", repository, sender }))
    expect([e?.title, e?.description, e?.url]).toEqual(["[test/repo] branch test deleted", "", "http://localhost:3000/test/repo/src/test"])
  })

  it("Fork", () => {
    const forkee = { html_url: "http://localhost:3000/test/repo2", full_name: "test/repo2" }
    const e = embed(discordMessage(settings, "fork", { forkee, repository, sender }))
    expect([e?.title, e?.description, e?.url]).toEqual(["test/repo2 is forked to test/repo", "", "http://localhost:3000/test/repo"])
  })

  it("Push", () => {
    const e = embed(discordMessage(settings, "push", push("commit message")))
    const line = `[2020558](http://localhost:3000/test/repo/commit/${sha}) commit message - user1`
    expect([e?.title, e?.description, e?.url]).toEqual(["[test/repo:test] 2 new commits", `${line}\n${line}`, "http://localhost:3000/test/repo/src/test"])
  })

  it("PushWithLongCommitMessage", () => {
    const message = "This is a commit summary ⚠️⚠️⚠️⚠️ containing 你好 ⚠️⚠️️\n\nThis is the message body."
    const e = embed(discordMessage(settings, "push", push(message)))
    const line = `[2020558](http://localhost:3000/test/repo/commit/${sha}) This is a commit summary ⚠️⚠️⚠️⚠️ containing 你好... - user1`
    expect(e?.description).toBe(`${line}\n${line}`)
  })

  it("PushWithMarkdownCharactersInCommitMessage", () => {
    const e = embed(discordMessage(settings, "push", push("# conflicts\n# - some/conflicting/file.txt")))
    const line = `[2020558](http://localhost:3000/test/repo/commit/${sha}) \\# conflicts\n\\# \\- some/conflicting/file.txt - user1`
    expect(e?.description).toBe(`${line}\n${line}`)
  })

  it("Repository", () => {
    const e = embed(discordMessage(settings, "repository", { action: "created", repository, organization: sender, sender }))
    expect([e?.title, e?.description, e?.url]).toEqual(["[test/repo] Repository created", "", "http://localhost:3000/test/repo"])
  })

  it("Release", () => {
    const release = { tag_name: "v1.0", body: "Note of first stable release", html_url: "http://localhost:3000/test/repo/releases/tag/v1.0" }
    const e = embed(discordMessage(settings, "release", { action: "published", release, repository, sender }))
    expect([e?.title, e?.description, e?.url]).toEqual([
      "[test/repo] Release created: v1.0", "Note of first stable release", "http://localhost:3000/test/repo/releases/tag/v1.0"
    ])
  })

  it("leaves unset fields out, as Go's omitempty does", () => {
    const value = discordMessage(settings, "fork", { forkee: repository, repository, sender })
    expect(Object.keys(value)).toEqual(["username", "embeds"])
    expect(embed(value)?.footer).toEqual({})
    expect(Object.keys(embed(value) ?? {})).toEqual(["title", "description", "url", "color", "footer", "author"])
  })
})

describe("escapeMarkdown (Forgejo's escapedMarkdownTests)", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["# Heading level 1", "\\# Heading level 1"],
    ["## Heading level 2", "\\#\\# Heading level 2"],
    ["**bold text**", "\\*\\*bold text\\*\\*"],
    ["*italic text*", "\\*italic text\\*"],
    ["_italic text_", "\\_italic text\\_"],
    ["~~strikethrough~~", "\\~\\~strikethrough\\~\\~"],
    [
      "1. Ordered list item\n2. Second ordered list item\n999999999999. 999999999999 ordered list item",
      "1\\. Ordered list item\n2\\. Second ordered list item\n999999999999\\. 999999999999 ordered list item"
    ],
    ["- Unordered list\n + using plus", "\\- Unordered list\n \\+ using plus"],
    ["* Bullet list item", "\\* Bullet list item"],
    ["| Table | Example |\n|-|-|\n| Lorem | Ipsum |", "\\| Table \\| Example \\|\n\\|-\\|-\\|\n\\| Lorem \\| Ipsum \\|"],
    ["[Link to Forgejo](https://forgejo.org/)", "\\[Link to Forgejo\\]\\(https://forgejo.org/\\)"],
    [
      "![Alt text for an image](https://forgejo.org/_astro/mascot-dark.1omhhgvT_Zm0N2n.webp)",
      "\\!\\[Alt text for an image\\]\\(https://forgejo.org/\\_astro/mascot-dark.1omhhgvT\\_Zm0N2n.webp\\)"
    ]
  ]
  for (const [input, expected] of cases) {
    it(input, () => expect(escapeMarkdown(input)).toBe(expected))
  }
})
