/**
 * Webhooks that deliver, end to end: a real Kiln server, real pushes with the git CLI, and a real
 * receiver on a socket. Payloads, headers and signatures as Forgejo sends them; filters; retries
 * with one guid; the delivery history and redelivery API; repository hooks and their gates.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { marshalMap } from "@kiln/domain/webhook/GoJson"
import { makeHookReceiver, type ReceivedRequest } from "../support/HookReceiver.ts"
import { createOrg } from "../support/OrgFixtures.ts"
import { at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const ZERO = "0000000000000000000000000000000000000000"
const hmac = (algorithm: "sha1" | "sha256", secret: string, content: string) =>
  createHmac(algorithm, secret).update(content).digest("hex")

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** A user with a repository made with an initial commit on `main`, and a clone of it. */
const setup = (username: string, repo: string) =>
  Effect.gen(function*() {
    const owner = yield* createUser(username)
    const created = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: repo, auto_init: true, readme: "Default" } })
    assert.strictEqual(created.status, 201, created.text)
    const client = yield* makeGitClient
    const work = client.path(repo)
    yield* client.git(["clone", "-q", cloneUrl(yield* baseUrl, username, repo, { username, password: owner.password }), work])
    const main = (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
    return { owner, client, work, main, hooks: `/api/v1/repos/${username}/${repo}/hooks` }
  })

const createHook = (path: string, auth: TestServer.Auth, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const created = yield* request("POST", path, { auth, json: { active: true, ...body } })
    assert.strictEqual(created.status, 201, created.text)
    return Number(at(created.body, "id"))
  })

const deliveriesOf = (hooksPath: string, id: number, auth: TestServer.Auth) =>
  Effect.map(request("GET", `${hooksPath}/${id}/deliveries`, { auth }), (response) => {
    assert.strictEqual(response.status, 200, response.text)
    return Array.isArray(response.body) ? response.body : []
  })

/** Polls a hook's deliveries until `done` holds for them. */
const deliveriesUntil = (hooksPath: string, id: number, auth: TestServer.Auth, done: (items: ReadonlyArray<unknown>) => boolean) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 400; tries++) {
      const items = yield* deliveriesOf(hooksPath, id, auth)
      if (done(items)) return items
      yield* sleep(50)
    }
    return yield* Effect.die(new Error("deliveries never reached the expected state"))
  })

const assertSigned = (received: ReceivedRequest, secret: string, content: string) => {
  assert.strictEqual(received.headers["x-forgejo-signature"], hmac("sha256", secret, content))
  assert.strictEqual(received.headers["x-gitea-signature"], hmac("sha256", secret, content))
  assert.strictEqual(received.headers["x-gogs-signature"], hmac("sha256", secret, content))
  assert.strictEqual(received.headers["x-hub-signature"], `sha1=${hmac("sha1", secret, content)}`)
  assert.strictEqual(received.headers["x-hub-signature-256"], `sha256=${hmac("sha256", secret, content)}`)
}

const assertEventHeaders = (received: ReceivedRequest, event: string) => {
  const guid = received.headers["x-forgejo-delivery"] ?? ""
  assert.match(guid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  for (const product of ["forgejo", "gitea", "gogs", "github"]) {
    assert.strictEqual(received.headers[`x-${product}-delivery`], guid)
    assert.strictEqual(received.headers[`x-${product}-event`], event)
    assert.strictEqual(received.headers[`x-${product}-event-type`], event)
  }
  // Go's header names as Forgejo sets them.
  assert.include(received.rawHeaders, "X-GitHub-Delivery")
  assert.include(received.rawHeaders, "X-Forgejo-Signature")
}

layer(TestServer.layer(), { excludeTestServices: true, timeout: "300 seconds" })("webhooks that deliver", (it) => {
  it.effect("a push that creates a branch sends create then push, signed, with Forgejo's payloads", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const { owner, client, work, main, hooks } = yield* setup("pam", "site")
      const secret = "s3cret-<&>"
      yield* createHook(hooks, owner.auth, {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json", secret },
        events: ["push", "create", "delete"],
        authorization_header: "Bearer receiver-token"
      })
      yield* client.git(["checkout", "-q", "-b", "feature"], { cwd: work })
      yield* client.commit(work, { "a.txt": "new file <&>\n", "README.md": "changed\n" }, "Add a & change <README>")
      const head = (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
      yield* client.git(["push", "-q", "origin", "feature"], { cwd: work })

      const [create, push] = yield* receiver.waitFor(2)
      if (create === undefined || push === undefined) return assert.fail("two requests expected")
      assert.strictEqual(create.method, "POST")
      assert.strictEqual(create.url, "/hook")
      assert.strictEqual(create.headers["content-type"], "application/json")
      assert.strictEqual(create.headers["authorization"], "Bearer receiver-token")
      assertEventHeaders(create, "create")
      assertSigned(create, secret, create.body)
      const created: unknown = JSON.parse(create.body)
      // Go's MarshalIndent: two spaces, HTML characters escaped.
      assert.strictEqual(create.body, JSON.stringify(created, null, 2).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026"))
      assert.deepStrictEqual(Object.keys(created as object), ["sha", "ref", "ref_type", "repository", "sender"])
      assert.strictEqual(at(created, "sha"), head)
      assert.strictEqual(at(created, "ref"), "refs/heads/feature")
      assert.strictEqual(at(created, "ref_type"), "branch")
      assert.strictEqual(at(created, "repository", "full_name"), "pam/site")
      assert.strictEqual(at(created, "sender", "login"), "pam")
      // An anonymous viewer's view of the sender: the e-mail is hidden.
      assert.strictEqual(at(created, "sender", "email"), "pam@noreply.kiln.test")

      assertEventHeaders(push, "push")
      assertSigned(push, secret, push.body)
      assert.notStrictEqual(push.headers["x-forgejo-delivery"], create.headers["x-forgejo-delivery"])
      const pushed: unknown = JSON.parse(push.body)
      assert.deepStrictEqual(Object.keys(pushed as object), [
        "ref", "before", "after", "compare_url", "commits", "total_commits", "head_commit", "repository", "pusher", "sender"
      ])
      assert.strictEqual(at(pushed, "ref"), "refs/heads/feature")
      assert.strictEqual(at(pushed, "before"), ZERO)
      assert.strictEqual(at(pushed, "after"), head)
      assert.strictEqual(at(pushed, "compare_url"), `${ROOT_URL}pam/site/compare/${main}...${head}`)
      assert.strictEqual(at(pushed, "total_commits"), 1)
      const commit = at(pushed, "commits", 0)
      assert.deepStrictEqual(Object.keys(commit as object), [
        "id", "message", "url", "author", "committer", "verification", "timestamp", "added", "removed", "modified"
      ])
      assert.strictEqual(at(commit, "id"), head)
      assert.strictEqual(at(commit, "message"), "Add a & change <README>\n")
      assert.strictEqual(at(commit, "url"), `${ROOT_URL}pam/site/commit/${head}`)
      assert.deepStrictEqual(at(commit, "author"), { name: "Ada Author", email: "ada@example.com", username: "" })
      assert.deepStrictEqual(at(commit, "committer"), { name: "Cy Committer", email: "cy@example.com", username: "" })
      assert.deepStrictEqual([at(commit, "added"), at(commit, "removed"), at(commit, "modified")], [["a.txt"], [], ["README.md"]])
      assert.deepStrictEqual(at(pushed, "head_commit"), commit)
      assert.strictEqual(at(pushed, "repository", "permissions", "admin"), true)
      assert.strictEqual(at(pushed, "pusher", "login"), "pam")
      assert.deepStrictEqual(at(pushed, "sender"), at(pushed, "pusher"))

      // An update of the branch sends a push only; a deletion a delete only.
      yield* client.commit(work, { "b.txt": "b\n" }, "second")
      const second = (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
      yield* client.git(["push", "-q", "origin", "feature"], { cwd: work })
      const update = (yield* receiver.waitFor(3))[2]
      assert.strictEqual(update?.headers["x-forgejo-event"], "push")
      const updated: unknown = JSON.parse(update?.body ?? "")
      assert.deepStrictEqual([at(updated, "before"), at(updated, "after")], [head, second])
      assert.strictEqual(at(updated, "compare_url"), `${ROOT_URL}pam/site/compare/${head}...${second}`)
      yield* client.git(["push", "-q", "origin", ":feature"], { cwd: work })
      const deletion = (yield* receiver.waitFor(4))[3]
      assert.strictEqual(deletion?.headers["x-forgejo-event"], "delete")
      const deleted: unknown = JSON.parse(deletion?.body ?? "")
      assert.deepStrictEqual(Object.keys(deleted as object), ["ref", "ref_type", "pusher_type", "repository", "sender"])
      assert.deepStrictEqual([at(deleted, "ref"), at(deleted, "ref_type"), at(deleted, "pusher_type")], ["refs/heads/feature", "branch", "user"])
      yield* sleep(300)
      assert.strictEqual(receiver.received.length, 4)
    })))

  it.effect("honours each hook's events, branch filter and active flag", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const { owner, client, work, hooks } = yield* setup("quinn", "filtered")
      const hook = (events: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
        createHook(hooks, owner.auth, { type: "gitea", config: { url: receiver.url, content_type: "json" }, events, ...extra })
      const releases = yield* hook(["push"], { branch_filter: "release/*" })
      const inactive = yield* hook(["push", "create"], { active: false })
      const creates = yield* hook(["create"])
      const mainOnly = yield* hook(["push"], { branch_filter: "{main,trunk}" })

      yield* client.commit(work, { "x.txt": "x\n" }, "on main")
      yield* client.git(["push", "-q", "origin", "main"], { cwd: work })
      // Deliveries are written with the push: they are there when it returns.
      assert.strictEqual((yield* deliveriesOf(hooks, releases, owner.auth)).length, 0)
      assert.strictEqual((yield* deliveriesOf(hooks, inactive, owner.auth)).length, 0)
      assert.strictEqual((yield* deliveriesOf(hooks, creates, owner.auth)).length, 0)
      assert.strictEqual((yield* deliveriesOf(hooks, mainOnly, owner.auth)).length, 1)

      yield* client.git(["push", "-q", "origin", "main:release/1.0"], { cwd: work })
      assert.deepStrictEqual((yield* deliveriesOf(hooks, releases, owner.auth)).map((d) => at(d, "event")), ["push"])
      assert.deepStrictEqual((yield* deliveriesOf(hooks, creates, owner.auth)).map((d) => at(d, "event")), ["create"])
      assert.strictEqual((yield* deliveriesOf(hooks, mainOnly, owner.auth)).length, 1)
      assert.strictEqual((yield* deliveriesOf(hooks, inactive, owner.auth)).length, 0)
      const received = yield* receiver.waitFor(3)
      assert.sameMembers(received.map((r) => r.headers["x-gitea-event"]), ["push", "push", "create"])
      // Gitea hooks get the short ref on create, re-encoded as a Go map.
      const create = received.find((r) => r.headers["x-gitea-event"] === "create")
      const createPayload: unknown = JSON.parse(create?.body ?? "")
      assert.strictEqual(at(createPayload, "ref"), "release/1.0")
      assert.strictEqual(create?.body, marshalMap(createPayload))
    })))

  it.effect("sends the form content type as payload=…, signed over the JSON", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const { owner, client, work, hooks } = yield* setup("rosa", "formed")
      yield* createHook(hooks, owner.auth, { type: "gogs", config: { url: receiver.url, content_type: "form", secret: "form-secret" } })
      yield* client.commit(work, { "f.txt": "a b+c&d=é\n" }, "form me")
      yield* client.git(["push", "-q", "origin", "main"], { cwd: work })
      const [push] = yield* receiver.waitFor(1)
      assert.strictEqual(push?.headers["content-type"], "application/x-www-form-urlencoded")
      const body = push?.body ?? ""
      assert.match(body, /^payload=/)
      assert.notInclude(body, " ")
      const content = new URLSearchParams(body).get("payload") ?? ""
      assert.strictEqual(at(JSON.parse(content), "ref"), "refs/heads/main")
      assertSigned(push ?? assert.fail(), "form-secret", content)
    })))

  it.effect("retries a receiver that answers 500 with the same guid, and shows the history; redelivers on request", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      receiver.answers.push(500)
      const { owner, client, work, hooks } = yield* setup("sara", "retried")
      const id = yield* createHook(hooks, owner.auth, {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        authorization_header: "Basic dXNlcjpwYXNz"
      })
      yield* client.commit(work, { "r.txt": "r\n" }, "retry me")
      yield* client.git(["push", "-q", "origin", "main"], { cwd: work })
      const [first, second] = yield* receiver.waitFor(2)
      assert.strictEqual(first?.headers["x-forgejo-delivery"], second?.headers["x-forgejo-delivery"])
      assert.strictEqual(first?.body, second?.body)
      assert.isAtLeast((second?.at ?? 0) - (first?.at ?? 0), 150)

      const [delivery] = yield* deliveriesUntil(hooks, id, owner.auth, (items) => at(items[0], "status") === "OK")
      assert.deepStrictEqual(Object.keys(delivery as object), [
        "id", "guid", "delivered_at", "redelivery", "duration", "status", "status_code", "event", "action", "attempts", "next_attempt_at"
      ])
      assert.strictEqual(at(delivery, "guid"), first?.headers["x-forgejo-delivery"])
      assert.strictEqual(at(delivery, "attempts"), 2)
      assert.strictEqual(at(delivery, "status_code"), 200)
      assert.strictEqual(at(delivery, "event"), "push")
      assert.strictEqual(at(delivery, "action"), null)
      assert.strictEqual(at(delivery, "redelivery"), false)
      assert.strictEqual(at(delivery, "next_attempt_at"), null)
      assert.match(String(at(delivery, "delivered_at")), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

      const deliveryId = Number(at(delivery, "id"))
      const detail = yield* request("GET", `${hooks}/${id}/deliveries/${deliveryId}`, { auth: owner.auth })
      assert.strictEqual(detail.status, 200, detail.text)
      assert.strictEqual(at(detail.body, "request", "headers", "Authorization"), "Basic ******")
      assert.strictEqual(at(detail.body, "request", "headers", "X-Forgejo-Delivery"), at(delivery, "guid"))
      assert.strictEqual(at(detail.body, "request", "payload", "ref"), "refs/heads/main")
      assert.strictEqual(at(detail.body, "response", "payload"), "thanks")
      assert.strictEqual(at(detail.body, "response", "headers", "X-Receiver"), "test")
      assert.notInclude(detail.text, "dXNlcjpwYXNz")
      const paged = yield* request("GET", `${hooks}/${id}/deliveries?limit=1`, { auth: owner.auth })
      assert.strictEqual(paged.headers.get("x-total-count"), "1")

      const redelivered = yield* request("POST", `${hooks}/${id}/deliveries/${deliveryId}/attempts`, { auth: owner.auth })
      assert.strictEqual(redelivered.status, 202, redelivered.text)
      const third = (yield* receiver.waitFor(3))[2]
      assert.strictEqual(third?.headers["x-forgejo-delivery"], first?.headers["x-forgejo-delivery"])
      const [again] = yield* deliveriesUntil(hooks, id, owner.auth, (items) => at(items[0], "attempts") === 3)
      assert.strictEqual(at(again, "redelivery"), true)
      assert.strictEqual(at(again, "status"), "OK")

      const missing = yield* request("GET", `${hooks}/${id}/deliveries/${deliveryId + 1000}`, { auth: owner.auth })
      assert.strictEqual(missing.status, 404)
      const missingRedelivery = yield* request("POST", `${hooks}/${id}/deliveries/${deliveryId + 1000}/attempts`, { auth: owner.auth })
      assert.strictEqual(missingRedelivery.status, 404)
    })))

  it.effect("gives up on a receiver that never answers after the timeout, retrying up to the attempt limit", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      receiver.answers.push("hang", "hang", "hang")
      const { owner, client, work, hooks } = yield* setup("tara", "silent")
      const id = yield* createHook(hooks, owner.auth, { type: "forgejo", config: { url: receiver.url, content_type: "json" } })
      yield* client.commit(work, { "t.txt": "t\n" }, "time out")
      yield* client.git(["push", "-q", "origin", "main"], { cwd: work })
      const [delivery] = yield* deliveriesUntil(hooks, id, owner.auth, (items) => at(items[0], "attempts") === 3 && at(items[0], "next_attempt_at") === null)
      // The test server's KILN_WEBHOOK_DELIVER_TIMEOUT is 2 s and KILN_WEBHOOK_MAX_ATTEMPTS 3.
      assert.strictEqual(at(delivery, "status"), "Delivery: no answer within 2000 ms")
      assert.strictEqual(at(delivery, "status_code"), null)
      assert.strictEqual(receiver.received.length, 3)
      // The attempt waited for the timeout (a timer's start and the recorded start may differ by a
      // millisecond either way), rather than failing at once.
      assert.isAtLeast(Number(at(delivery, "duration")), 1.9)
    })))

  it.effect("records refused targets and unsupported types as failed deliveries", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const { owner, client, work, hooks } = yield* setup("uma", "refused")
      // The test server allows loopback only; 10/8 is private.
      const refused = yield* createHook(hooks, owner.auth, { type: "forgejo", config: { url: "http://10.11.12.13:9/hook", content_type: "json" } })
      const unsupported = yield* createHook(hooks, owner.auth, { type: "dingtalk", config: { url: receiver.url, content_type: "json" } })
      yield* client.commit(work, { "u.txt": "u\n" }, "refuse me")
      yield* client.git(["push", "-q", "origin", "main"], { cwd: work })
      const [denied] = yield* deliveriesUntil(hooks, refused, owner.auth, (items) => at(items[0], "status") !== "pending")
      assert.strictEqual(
        at(denied, "status"),
        "Delivery: webhook can only call allowed HTTP servers (check your KILN_WEBHOOK_ALLOWED_HOSTS setting), deny '10.11.12.13(10.11.12.13)'"
      )
      assert.strictEqual(at(denied, "attempts"), 1)
      const [dropped] = yield* deliveriesUntil(hooks, unsupported, owner.auth, (items) => at(items[0], "status") !== "pending")
      assert.strictEqual(at(dropped, "status"), `webhook type "dingtalk" is not supported by Kiln`)
      assert.strictEqual(at(dropped, "next_attempt_at"), null)
      assert.strictEqual(receiver.received.length, 0)
    })))

  it.effect("tests a hook with a push of the default branch's head, whatever its events", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const { owner, main, hooks } = yield* setup("vera", "tested")
      const id = yield* createHook(hooks, owner.auth, {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        events: ["release"]
      })
      const tested = yield* request("POST", `${hooks}/${id}/tests`, { auth: owner.auth })
      assert.strictEqual(tested.status, 204, tested.text)
      const [push] = yield* receiver.waitFor(1)
      assert.strictEqual(push?.headers["x-forgejo-event"], "push")
      const payload: unknown = JSON.parse(push?.body ?? "")
      assert.deepStrictEqual([at(payload, "ref"), at(payload, "before"), at(payload, "after")], ["refs/heads/main", main, main])
      assert.strictEqual(at(payload, "compare_url"), `${ROOT_URL}vera/tested/compare/${main}...${main}`)
      assert.strictEqual(at(payload, "total_commits"), 1)
      assert.strictEqual(at(payload, "commits", 0, "added"), null)
      assert.strictEqual(at(payload, "commits", 0, "verification", "reason"), "gpg.error.not_signed_commit")
      assert.strictEqual(at(payload, "repository", "permissions", "admin"), false)
      assert.strictEqual(at(payload, "pusher", "login"), "vera")
      const unknown = yield* request("POST", `${hooks}/${id + 1000}/tests`, { auth: owner.auth })
      assert.strictEqual(unknown.status, 404)
    })))

  it.effect("changes through the API send their events to the organization's hooks", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const owner = yield* createUser("xena")
      const forker = yield* createUser("xena-forker")
      yield* createOrg(owner.auth, "xena-org")
      const hookId = yield* createHook("/api/v1/orgs/xena-org/hooks", owner.auth, {
        type: "forgejo",
        config: { url: receiver.url, content_type: "json" },
        events: ["create", "delete", "push", "release", "repository", "fork"]
      })
      const events = (count: number) =>
        Effect.map(receiver.waitFor(count), (all) => all.map((r) => {
          const body: unknown = JSON.parse(r.body)
          return [r.headers["x-forgejo-event"], at(body, "action") ?? at(body, "ref") ?? null]
        }))

      const repo = yield* request("POST", "/api/v1/orgs/xena-org/repos", { auth: owner.auth, json: { name: "svc", auto_init: true } })
      assert.strictEqual(repo.status, 201, repo.text)
      const [created] = yield* receiver.waitFor(1)
      // Forgejo indents repository payloads with one space.
      assert.match(created?.body ?? "", /^\{\n "action": "created",\n "repository": \{/)
      assert.strictEqual(at(JSON.parse(created?.body ?? ""), "organization", "login"), "xena-org")

      const branch = yield* request("POST", "/api/v1/repos/xena-org/svc/branches", { auth: owner.auth, json: { new_branch_name: "topic" } })
      assert.strictEqual(branch.status, 201, branch.text)
      const again = yield* request("POST", "/api/v1/repos/xena-org/svc/branches", { auth: owner.auth, json: { new_branch_name: "topic" } })
      assert.strictEqual(again.status, 409)
      const removed = yield* request("DELETE", "/api/v1/repos/xena-org/svc/branches/topic", { auth: owner.auth })
      assert.strictEqual(removed.status, 204, removed.text)
      // One change's events reach a hook in order (create before push); separate changes' deliveries may overtake each other.
      const first = (yield* events(4)).map((pair) => pair.join(" "))
      assert.sameMembers(first, ["repository created", "create refs/heads/topic", "push refs/heads/topic", "delete refs/heads/topic"])
      assert.isBelow(first.indexOf("create refs/heads/topic"), first.indexOf("push refs/heads/topic"))

      const release = yield* request("POST", "/api/v1/repos/xena-org/svc/releases", { auth: owner.auth, json: { tag_name: "v1", name: "One" } })
      assert.strictEqual(release.status, 201, release.text)
      const releaseId = Number(at(release.body, "id"))
      const edited = yield* request("PATCH", `/api/v1/repos/xena-org/svc/releases/${releaseId}`, { auth: owner.auth, json: { name: "One!" } })
      assert.strictEqual(edited.status, 200, edited.text)
      const deleted = yield* request("DELETE", `/api/v1/repos/xena-org/svc/releases/${releaseId}`, { auth: owner.auth })
      assert.strictEqual(deleted.status, 204, deleted.text)
      const fork = yield* request("POST", "/api/v1/repos/xena-org/svc/forks", { auth: forker.auth, json: {} })
      assert.strictEqual(fork.status, 202, fork.text)
      const gone = yield* request("DELETE", "/api/v1/repos/xena-org/svc", { auth: owner.auth })
      assert.strictEqual(gone.status, 204, gone.text)
      const all = (yield* events(11)).map((pair) => pair.join(" "))
      // The release made its tag: the tag's push and create come before the release.
      assert.sameMembers(all.slice(4), [
        "push refs/tags/v1", "create refs/tags/v1", "release published", "release updated", "release deleted", "fork ", "repository deleted"
      ])
      assert.isBelow(all.indexOf("push refs/tags/v1"), all.indexOf("create refs/tags/v1"))
      assert.isBelow(all.indexOf("create refs/tags/v1"), all.indexOf("release published"))
      const bodyOf = (event: string, action: string | null) =>
        JSON.parse(receiver.received.find((r) => r.headers["x-forgejo-event"] === event && (action === null || r.body.includes(`"action": "${action}"`)))?.body ?? "") as unknown
      const releasePayload = bodyOf("release", "published")
      assert.deepStrictEqual(Object.keys(releasePayload as object), ["action", "release", "repository", "sender"])
      assert.strictEqual(at(releasePayload, "release", "tag_name"), "v1")
      const forkPayload = bodyOf("fork", null)
      assert.deepStrictEqual(Object.keys(forkPayload as object), ["forkee", "repository", "sender"])
      assert.deepStrictEqual([at(forkPayload, "forkee", "full_name"), at(forkPayload, "repository", "full_name")], ["xena-org/svc", "xena-forker/svc"])
      // The organization hook's history holds all of them.
      const history = yield* deliveriesUntil("/api/v1/orgs/xena-org/hooks", hookId, owner.auth, (items) => items.length === 11)
      assert.strictEqual(at(history[0], "event"), "repository")
      assert.strictEqual(at(history[0], "action"), "deleted")
    })))

  it.effect("repository hooks: Forgejo's JSON and rules, for repository admins only", () =>
    Effect.scoped(Effect.gen(function*() {
      const { owner, hooks } = yield* setup("wes", "guarded")
      const reader = yield* createUser("wes-reader")
      const added = yield* request("PUT", "/api/v1/repos/wes/guarded/collaborators/wes-reader", { auth: owner.auth, json: { permission: "read" } })
      assert.include([204, 404], added.status)
      const created = yield* request("POST", hooks, {
        auth: owner.auth,
        json: { type: "forgejo", config: { url: "https://hooks.example/x", content_type: "json", secret: "hidden" }, events: ["create"] }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.notInclude(created.text, "hidden")
      const id = Number(at(created.body, "id"))
      assert.deepStrictEqual(at(created.body, "events"), ["create"])
      assert.strictEqual(at(created.body, "active"), false)
      const listed = yield* request("GET", hooks, { auth: owner.auth })
      assert.deepStrictEqual([listed.status, listed.body, listed.headers.get("x-total-count")], [200, [created.body], "1"])
      const edited = yield* request("PATCH", `${hooks}/${id}`, { auth: owner.auth, json: { active: true, branch_filter: "main" } })
      assert.deepStrictEqual([at(edited.body, "active"), at(edited.body, "branch_filter"), at(edited.body, "events")], [true, "main", ["push"]])
      const invalid = yield* request("POST", hooks, { auth: owner.auth, json: { type: "forgejo", config: { url: "nope", content_type: "json" } } })
      assert.deepStrictEqual([invalid.status, at(invalid.body, "message")], [422, "Invalid url"])
      // A header value no client can send is refused when saved, on create and edit (finding 22).
      const header = { type: "forgejo", config: { url: "https://hooks.example/x", content_type: "json" }, authorization_header: "Bearer a\r\nb" }
      const badHeader = yield* request("POST", hooks, { auth: owner.auth, json: header })
      assert.deepStrictEqual([badHeader.status, at(badHeader.body, "message")], [422, "Invalid authorization header"])
      const badEdit = yield* request("PATCH", `${hooks}/${id}`, { auth: owner.auth, json: { authorization_header: "\u001b" } })
      assert.deepStrictEqual([badEdit.status, at(badEdit.body, "message")], [422, "Invalid authorization header"])

      const anonymous = yield* request("GET", hooks)
      assert.strictEqual(anonymous.status, 401)
      const denied = yield* request("GET", hooks, { auth: reader.auth })
      assert.include([403, 404], denied.status)
      if (denied.status === 403) {
        assert.strictEqual(at(denied.body, "message"), "user should be an owner or a collaborator with admin write of a repository")
      }
      const viaAdmin = yield* request("GET", `${hooks}/${id}`, { auth: TestServer.admin })
      assert.strictEqual(viaAdmin.status, 200)
      // Another repository's hook id is not found here, nor through the owner's organization routes.
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "other" } })
      const elsewhere = yield* request("GET", `/api/v1/repos/wes/other/hooks/${id}`, { auth: owner.auth })
      assert.strictEqual(elsewhere.status, 404)
      const removed = yield* request("DELETE", `${hooks}/${id}`, { auth: owner.auth })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* request("DELETE", `${hooks}/${id}`, { auth: owner.auth })).status, 404)
    })))

  it.effect("the served Swagger document describes repository hooks and the delivery history of both kinds of hooks", () =>
    Effect.gen(function*() {
      const described = yield* request("GET", "/swagger.v1.json")
      const paths = at(described.body, "paths") as Record<string, Record<string, unknown>>
      for (const base of ["/orgs/{org}/hooks/{id}", "/repos/{owner}/{repo}/hooks/{id}"]) {
        assert.property(paths[`${base}/deliveries`], "get")
        assert.property(paths[`${base}/deliveries/{delivery_id}`], "get")
        assert.property(paths[`${base}/deliveries/{delivery_id}/attempts`], "post")
      }
      assert.property(paths["/repos/{owner}/{repo}/hooks"], "post")
      assert.property(paths["/repos/{owner}/{repo}/hooks/{id}/tests"], "post")
    }))
})
