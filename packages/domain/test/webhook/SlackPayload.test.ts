/**
 * Slack's messages, with the expected texts of Forgejo's services/webhook/slack_test.go for the
 * events Kiln sends (fixtures as general_test.go builds them).
 */
import { describe, expect, it } from "vitest"
import { slackMessage } from "../../src/webhook/payloads/SlackPayload.ts"

const sha = "2020558fe2e34debb818a514715839cabd25e777"
const repository = { html_url: "http://localhost:3000/test/repo", full_name: "test/repo", name: "repo" }
const user1 = { login: "user1" }
const commit = {
  id: sha,
  message: "commit message",
  url: `http://localhost:3000/test/repo/commit/${sha}`,
  author: { name: "user1", email: "user1@localhost", username: "user1" },
  committer: { name: "user1", email: "user1@localhost", username: "user1" }
}

describe("Slack payloads (Forgejo's TestSlackPayload)", () => {
  it("Create", () => {
    const text = slackMessage(undefined, "create", { sha, ref: "refs/heads/test", ref_type: "branch", repository, sender: user1 }).text
    expect(text).toBe("[test/repo:<http://localhost:3000/test/repo/src/branch/test|test>] branch created by user1")
  })

  it("Delete", () => {
    const text = slackMessage(undefined, "delete", { ref: "test", ref_type: "branch", repository, sender: user1 }).text
    expect(text).toBe("[<http://localhost:3000/test/repo|test/repo>:test] branch deleted by user1")
  })

  it("Fork", () => {
    const forkee = { html_url: "http://localhost:3000/test/repo2", full_name: "test/repo2" }
    const text = slackMessage(undefined, "fork", { forkee, repository, sender: user1 }).text
    expect(text).toBe("<http://localhost:3000/test/repo2|test/repo2> is forked to <http://localhost:3000/test/repo|test/repo>")
  })

  it("Push", () => {
    const message = slackMessage(undefined, "push", {
      ref: "refs/heads/test", before: sha, after: sha, compare_url: "", commits: [commit, commit], total_commits: 2,
      head_commit: commit, repository, pusher: user1, sender: user1
    })
    expect(message.text).toBe("[test/repo:<http://localhost:3000/test/repo/src/branch/test|test>] 2 new commits pushed by user1")
    const line = `<http://localhost:3000/test/repo/commit/${sha}|2020558>: commit message - user1`
    expect(message.attachments).toEqual([
      { fallback: "", color: "", title: "http://localhost:3000/test/repo", title_link: "http://localhost:3000/test/repo", text: `${line}\n${line}` }
    ])
  })

  it("Repository", () => {
    const text = slackMessage(undefined, "repository", { action: "created", repository, organization: user1, sender: user1 }).text
    expect(text).toBe("[<http://localhost:3000/test/repo|test/repo>] Repository created by user1")
  })

  it("Release", () => {
    const release = { tag_name: "v1.0", target_commitish: "master", name: "Example Release" }
    const text = slackMessage(undefined, "release", { action: "published", release, repository, sender: user1 }).text
    expect(text).toBe("[test/repo] Release created: <http://localhost:3000/test/repo/releases/tag/v1.0|v1.0> by user1")
  })

  it("carries the hook's channel, username and icon, and escapes Slack's characters", () => {
    const message = slackMessage(
      { channel: "#dev", username: "kiln", iconUrl: "https://icons.example/k.png", color: "good" },
      "create",
      { ref: "refs/tags/a&b", ref_type: "tag", repository, sender: user1 }
    )
    expect(message).toEqual({
      channel: "#dev",
      text: "[test/repo:<http://localhost:3000/test/repo/src/tag/a&b|a&amp;b>] tag created by user1",
      username: "kiln",
      icon_url: "https://icons.example/k.png",
      unfurl_links: 0,
      link_names: 0,
      attachments: null
    })
  })
})
