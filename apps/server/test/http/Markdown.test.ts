import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { admin, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const wikiText = [
  "Wiki! Enjoy :)",
  "- [[Links, Language bindings, Engine bindings|Links]]",
  "- [[Tips]]",
  "- Bezier widget (by @r-lyeh) https://github.com/ocornut/imgui/issues/786"
].join("\n")

layer(TestServer.layer({ markdownMaxSize: 4096 }), { timeout: "120 seconds" })("POST /markdown", (it) => {
  it.effect("needs a signed-in caller", () =>
    Effect.gen(function*() {
      const anonymous = yield* request("POST", "/api/v1/markdown", { json: { Text: "# hi" } })
      assert.strictEqual(anonymous.status, 401)
      assert.strictEqual((yield* request("POST", "/api/v1/markdown/raw", { body: "# hi", contentType: "text/plain" })).status, 401)
    }))

  it.effect("renders gfm documents with wiki links, mentions of existing users and autolinks (MD-01, MD-02)", () =>
    Effect.gen(function*() {
      yield* createUser("r-lyeh")
      const response = yield* request("POST", "/api/v1/markdown", {
        auth: admin,
        json: { Text: wikiText, Mode: "gfm", Context: "gogits/gogs", Wiki: true }
      })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("content-type"), "text/html; charset=utf-8")
      assert.include(response.text, `<a href="${ROOT_URL}gogits/gogs/wiki/Links" rel="nofollow">Links, Language bindings, Engine bindings</a>`)
      assert.include(response.text, `<a href="${ROOT_URL}gogits/gogs/wiki/Tips" rel="nofollow">Tips</a>`)
      assert.include(response.text, `<a href="${ROOT_URL}r-lyeh" class="mention" rel="nofollow">@r-lyeh</a>`)
      assert.include(response.text, `<a href="https://github.com/ocornut/imgui/issues/786" rel="nofollow">`)
      const heading = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { text: "## What is Wine Staging?", mode: "gfm" } })
      assert.include(heading.text, `<h2 id="user-content-what-is-wine-staging">`)
    }))

  it.effect("links mentions only for existing public users", () =>
    Effect.gen(function*() {
      yield* createUser("secretive", { visibility: "private" })
      const response = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { Text: "hi @nobody-here and @secretive", Mode: "comment" } })
      assert.notInclude(response.text, "class=\"mention\"")
    }))

  it.effect("uses the raw renderer for markdown mode and /markdown/raw (MD-03)", () =>
    Effect.gen(function*() {
      const user = yield* createUser("mdreader")
      const text = "[[Guardfile-DSL / Configuring-Guard|Guardfile-DSL---Configuring-Guard]]"
      const json = yield* request("POST", "/api/v1/markdown", { auth: user.auth, json: { Text: text, Mode: "markdown" } })
      assert.strictEqual(json.text, `<p>${text}</p>\n`)
      const raw = yield* request("POST", "/api/v1/markdown/raw", { auth: user.auth, body: "[[Name|Link]]", contentType: "text/plain" })
      assert.strictEqual(raw.status, 200)
      assert.strictEqual(raw.text, "<p>[[Name|Link]]</p>\n")
      const empty = yield* request("POST", "/api/v1/markdown", { auth: user.auth, json: { Text: "", Mode: "gfm" } })
      assert.strictEqual(empty.status, 200)
      assert.strictEqual(empty.text, "")
    }))

  it.effect("sanitizes the output", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/api/v1/markdown/raw", {
        auth: admin,
        body: `<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>`,
        contentType: "text/plain"
      })
      assert.notInclude(response.text, "<script")
      assert.notInclude(response.text, `href="javascript:`)
      assert.notInclude(response.text, "onerror")
      assert.include(response.text, "<img")
    }))

  it.effect("answers 422 for a body that is not a MarkdownOption and 413 over the size limit", () =>
    Effect.gen(function*() {
      const notText = yield* request("POST", "/api/v1/markdown", { auth: admin, json: { Text: 42 } })
      assert.strictEqual(notText.status, 422)
      const malformed = yield* request("POST", "/api/v1/markdown", { auth: admin, body: "{" })
      assert.strictEqual(malformed.status, 422)
      const large = yield* request("POST", "/api/v1/markdown/raw", { auth: admin, body: "a".repeat(5000), contentType: "text/plain" })
      assert.strictEqual(large.status, 413)
    }))
})
