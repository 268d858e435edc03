/** Microsoft Teams' cards, with the expected values of Forgejo's services/webhook/msteams_test.go for the events Kiln sends. */
import { describe, expect, it } from "vitest"
import { msTeamsMessage } from "../../src/webhook/payloads/MsTeamsPayload.ts"

const sha = "2020558fe2e34debb818a514715839cabd25e778"
const repository = { html_url: "http://localhost:3000/test/repo", full_name: "test/repo" }
const sender = { login: "user1", full_name: "User One", avatar_url: "http://localhost:3000/user1/avatar" }
const commit = { id: sha, message: "commit message", url: `http://localhost:3000/test/repo/commit/${sha}`, author: { name: "user1" } }

const summary = (card: ReturnType<typeof msTeamsMessage>) => ({
  title: card.title,
  summary: card.summary,
  subtitle: card.sections[0]?.activitySubtitle,
  text: card.sections[0]?.text,
  facts: card.sections[0]?.facts,
  target: card.potentialAction[0]?.targets[0]?.uri
})

describe("MS Teams payloads (Forgejo's TestMSTeamsPayload)", () => {
  it("Create", () => {
    expect(summary(msTeamsMessage("create", { ref: "refs/heads/test", ref_type: "branch", sha, repository, sender }))).toEqual({
      title: "[test/repo] branch test created",
      summary: "[test/repo] branch test created",
      subtitle: "user1",
      text: "",
      facts: [{ name: "Repository:", value: "test/repo" }, { name: "branch:", value: "test" }],
      target: "http://localhost:3000/test/repo/src/test"
    })
  })

  it("Delete", () => {
    const card = summary(msTeamsMessage("delete", { ref: "test", ref_type: "branch", repository, sender }))
    expect([card.title, card.facts, card.target]).toEqual([
      "[test/repo] branch test deleted",
      [{ name: "Repository:", value: "test/repo" }, { name: "branch:", value: "test" }],
      "http://localhost:3000/test/repo/src/test"
    ])
  })

  it("Fork", () => {
    const forkee = { html_url: "http://localhost:3000/test/repo2", full_name: "test/repo2" }
    const card = summary(msTeamsMessage("fork", { forkee, repository, sender }))
    expect([card.title, card.facts, card.target]).toEqual([
      "test/repo2 is forked to test/repo",
      [{ name: "Repository:", value: "test/repo" }, { name: "Forkee:", value: "test/repo2" }],
      "http://localhost:3000/test/repo"
    ])
  })

  it("Push", () => {
    const card = summary(msTeamsMessage("push", {
      ref: "refs/heads/test", compare_url: "", commits: [commit, commit], total_commits: 2, repository, pusher: sender, sender
    }))
    const line = `[2020558](http://localhost:3000/test/repo/commit/${sha}) commit message - user1`
    expect(card).toEqual({
      title: "[test/repo:test] 2 new commits",
      summary: "[test/repo:test] 2 new commits",
      subtitle: "user1",
      text: `${line}\n\n${line}`,
      facts: [{ name: "Repository:", value: "test/repo" }, { name: "Commit count:", value: "2" }],
      target: "http://localhost:3000/test/repo/src/test"
    })
  })

  it("Repository", () => {
    const card = summary(msTeamsMessage("repository", { action: "created", repository, organization: sender, sender }))
    expect([card.title, card.facts, card.target]).toEqual([
      "[test/repo] Repository created", [{ name: "Repository:", value: "test/repo" }], "http://localhost:3000/test/repo"
    ])
  })

  it("Release", () => {
    const release = { tag_name: "v1.0", html_url: "http://localhost:3000/test/repo/releases/tag/v1.0" }
    const card = summary(msTeamsMessage("release", { action: "published", release, repository, sender }))
    expect([card.title, card.text, card.facts, card.target]).toEqual([
      "[test/repo] Release created: v1.0",
      "",
      [{ name: "Repository:", value: "test/repo" }, { name: "Tag:", value: "v1.0" }],
      "http://localhost:3000/test/repo/releases/tag/v1.0"
    ])
  })

  it("is a MessageCard with the theme color in hex", () => {
    const card = msTeamsMessage("create", { ref: "refs/heads/test", ref_type: "branch", repository, sender })
    expect([card["@type"], card["@context"], card.themeColor]).toEqual(["MessageCard", "https://schema.org/extensions", "1ac600"])
    expect(card.sections[0]?.activityTitle).toBe("User One")
  })
})
