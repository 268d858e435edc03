import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { globPatternError } from "../../src/org/GlobPattern.ts"
import { isValidHttpUrl } from "../../src/org/HttpUrl.ts"
import {
  applyHookEdit,
  type CreateHookBody,
  eventSwitchesFor,
  hookEventNames,
  hookView,
  parseHookDraft,
  type Webhook
} from "../../src/org/Webhook.ts"

const refusal = (body: CreateHookBody) => Effect.runSync(Effect.flip(parseHookDraft(body))).message
const config = { url: "http://example.com/hook", content_type: "json" }

const hook: Webhook = {
  id: 4,
  ownerId: 3,
  repositoryId: undefined,
  type: "gitea",
  url: "http://example.com/hook",
  contentType: "json",
  events: ["create", "push"],
  branchFilter: "main",
  authorizationHeader: "Bearer x",
  active: true,
  isSystemWebhook: false,
  slack: undefined,
  createdAt: 1,
  updatedAt: 2
}

describe("hook creation", () => {
  it("refuses what Forgejo refuses, with its texts and in its order", () => {
    assert.strictEqual(refusal({ config }), "[Type]: Required")
    assert.strictEqual(refusal({ type: "gitea" }), "[Config]: Required")
    assert.strictEqual(refusal({ type: "nope", config, branchFilter: "[" }), "[BranchFilter]: unexpected end of input")
    assert.strictEqual(refusal({ type: "nope", config }), "Invalid hook type: nope")
    assert.strictEqual(refusal({ type: "gitea", config: { content_type: "json" } }), "Missing config option: url")
    assert.strictEqual(refusal({ type: "gitea", config: { url: "http://x" } }), "Missing config option: content_type")
    assert.strictEqual(refusal({ type: "gitea", config: { ...config, content_type: "xml" } }), "Invalid content type")
    assert.strictEqual(refusal({ type: "gitea", config: { ...config, url: "ftp://x" } }), "Invalid url")
    assert.strictEqual(refusal({ type: "gitea", config: { ...config, is_system_webhook: "yes" } }), "Invalid is_system_webhook value")
    assert.strictEqual(refusal({ type: "slack", config }), "Missing config option: channel")
    assert.strictEqual(refusal({ type: "slack", config: { ...config, channel: "Not Valid" } }), "Invalid slack channel name")
  })

  it("refuses an authorization header no client can send, on create and on edit (finding 22)", () => {
    for (const value of ["Bearer a\r\nX-Injected: 1", "Bearer \n", "Bearer \u0000", "x\u007f", "\u001b[31m"]) {
      assert.strictEqual(refusal({ type: "gitea", config, authorizationHeader: value }), "Invalid authorization header", JSON.stringify(value))
      assert.strictEqual(Effect.runSync(Effect.flip(applyHookEdit(hook, { authorizationHeader: value }, 3))).message, "Invalid authorization header")
    }
    // What Go's client sends: visible text, spaces and tabs, and text beyond ASCII (as UTF-8).
    for (const value of ["Bearer t", "Basic \tdXNlcjpwdw==", "Bearer \u0100", "Bearer ✓"]) {
      assert.strictEqual(Effect.runSync(parseHookDraft({ type: "gitea", config, authorizationHeader: value })).authorizationHeader, value)
    }
  })

  it("bounds the branch filter's length", () => {
    const longest = "a".repeat(256)
    assert.strictEqual(Effect.runSync(parseHookDraft({ type: "gitea", config, branchFilter: longest })).branchFilter, longest)
    assert.strictEqual(refusal({ type: "gitea", config, branchFilter: `${longest}*` }), "[BranchFilter]: pattern is longer than 256 characters")
  })

  it("defaults: events push, inactive, secret from the config, authorization header kept", () => {
    const draft = Effect.runSync(parseHookDraft({
      type: "forgejo",
      config: { ...config, secret: "s3cret" },
      authorizationHeader: "Bearer t"
    }))
    assert.deepStrictEqual(draft.events, ["push"])
    assert.isFalse(draft.active)
    assert.strictEqual(draft.secret, "s3cret")
    assert.strictEqual(draft.authorizationHeader, "Bearer t")
  })

  it("`issues` and `pull_request` switch on their sub-events; names match case-insensitively", () => {
    assert.deepStrictEqual(eventSwitchesFor(["ISSUES"]), ["issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"])
    assert.deepStrictEqual(eventSwitchesFor(["issues_only", "unknown"]), ["issues"])
    assert.deepStrictEqual(hookEventNames({ events: eventSwitchesFor(["pull_request"]) }), [
      "pull_request",
      "pull_request_assign",
      "pull_request_label",
      "pull_request_milestone",
      "pull_request_comment",
      "pull_request_review_approved",
      "pull_request_review_rejected",
      "pull_request_review_comment",
      "pull_request_sync",
      "pull_request_review_request"
    ])
  })
})

describe("hook edits", () => {
  const edit = (body: Parameters<typeof applyHookEdit>[1]) => Effect.runSync(applyHookEdit(hook, body, 99))

  it("omitted events reset to push; branch filter and authorization header are overwritten", () => {
    const changes = edit({})
    assert.deepStrictEqual(changes.events, ["push"])
    assert.strictEqual(changes.branchFilter, "")
    assert.strictEqual(changes.authorizationHeader, "")
    assert.isTrue(changes.active)
    assert.strictEqual(changes.url, hook.url)
    assert.strictEqual(changes.updatedAt, 99)
  })

  it("config url and content type are checked when present", () => {
    assert.strictEqual(Effect.runSync(Effect.flip(applyHookEdit(hook, { config: { url: "nope" } }, 1))).message, "Invalid url")
    assert.strictEqual(
      Effect.runSync(Effect.flip(applyHookEdit(hook, { config: { content_type: "x" } }, 1))).message,
      "Invalid content type"
    )
    assert.strictEqual(edit({ config: { content_type: "form" }, active: false }).contentType, "form")
  })
})

describe("hook JSON", () => {
  it("has Forgejo's keys in order, sorted config keys and no secret", () => {
    const view = hookView(hook, String)
    assert.deepStrictEqual(Object.keys(view), [
      "id", "type", "branch_filter", "url", "config", "events", "authorization_header", "content_type", "metadata",
      "active", "updated_at", "created_at"
    ])
    assert.deepStrictEqual(view.config, { content_type: "json", url: "http://example.com/hook" })
    assert.deepStrictEqual(Object.keys(view.config), ["content_type", "url"])
    assert.isNull(view.metadata)
    assert.deepStrictEqual(view.events, ["create", "push"])
  })
})

describe("branch filter globs (gobwas/glob)", () => {
  it("accepts what compiles and names the error otherwise", () => {
    for (const ok of ["", "main", "*", "{main,release/*}", "feature/**", "[abc]", "[a-z]*", "[!a-c]", "\\[x", "{a"]) {
      assert.isUndefined(globPatternError(ok), ok)
    }
    assert.strictEqual(globPatternError("[a-z"), "unexpected end of input")
    assert.strictEqual(globPatternError("[a-zx]"), "expected close range character")
    assert.strictEqual(globPatternError("[z-a]"), "hi character 'a' should be greater than lo 'z'")
    assert.strictEqual(globPatternError("[]"), "could not parse range")
    assert.strictEqual(globPatternError("[z-ax"), "expected close range character")
  })

  it("property: patterns without range brackets always compile", () => {
    fc.assert(fc.property(fc.string().filter((s) => !s.includes("[")), (pattern) => {
      assert.isUndefined(globPatternError(pattern))
    }))
  })
})

describe("http urls (Forgejo's IsValidURL)", () => {
  it("needs http(s), a numeric port and a sane host", () => {
    for (const ok of ["http://example.com", "https://example.com:8080/x?y=1", "http://[::1]:3000/", "http://user:pw@host/", "http:opaque"]) {
      assert.isTrue(isValidHttpUrl(ok), ok)
    }
    for (const bad of ["", "example.com", "ftp://example.com", "http://host:port/", "http://exa mple.com", "http://x/%zz", "http://x\n"]) {
      assert.isFalse(isValidHttpUrl(bad), bad)
    }
  })
})
