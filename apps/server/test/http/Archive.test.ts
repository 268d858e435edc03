import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bareRepositoryPath, git, seedRepository } from "./ArchiveFixtures.ts"
import { type Auth, baseUrl, createUser, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const download = (path: string, auth?: Auth, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const authorization = auth?.basic === undefined
      ? {}
      : { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }
    const response = yield* Effect.promise(() => fetch(`${base}${path}`, { headers: { ...authorization, ...headers } }))
    const body = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
    return { status: response.status, headers: response.headers, body }
  })

/** `tar -tv` / `unzip -Z` listings name every entry with its mode and link target. */
const listing = (format: "tar.gz" | "zip", bytes: Buffer) =>
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "kiln-archive-"))
    const file = join(dir, `a.${format}`)
    writeFileSync(file, bytes)
    const out = yield* Effect.promise(() =>
      new Promise<string>((resolve, reject) => {
        import("node:child_process").then(({ execFile }) =>
          execFile(format === "zip" ? "unzip" : "tar", format === "zip" ? ["-Z", "-l", file] : ["-tvzf", file], (error, stdout) =>
            error === null ? resolve(stdout) : reject(error)))
      }))
    return out
  })

layer(TestServer.layer(), { timeout: "180 seconds" })("archives", (it) => {
  it.effect("serves zip, tar.gz and bundle archives identical to git's, by branch, tag, commit id and ref with /", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const { work, main, feature } = yield* seedRepository(ada.auth, "ada", "content")

      const tar = yield* download("/api/v1/repos/ada/content/archive/main.tar.gz", ada.auth)
      assert.strictEqual(tar.status, 200)
      assert.strictEqual(tar.headers.get("content-type"), "application/gzip")
      assert.strictEqual(
        tar.headers.get("content-disposition"),
        `attachment; filename="content-main.tar.gz"; filename*=UTF-8''content-main.tar.gz`
      )
      const link = `<${ROOT_URL}api/v1/repos/ada/content/archive/${main}.tar.gz?rev=${main}>; rel="immutable"`
      assert.strictEqual(tar.headers.get("link"), link)
      const expectedTar = yield* git(["archive", "--format=tar.gz", "--prefix=content/", main], work)
      assert.isTrue(tar.body.equals(expectedTar), "tar.gz bytes equal git archive's")
      const tarList = yield* listing("tar.gz", tar.body)
      assert.match(tarList, /^-rwx\S* .* content\/run\.sh$/m)
      assert.match(tarList, /^l\S* .* content\/link-to-main -> src\/main\.ts$/m)
      assert.match(tarList, /content\/src\/deep\/er\/data\.bin$/m)

      const immutable = yield* download(`/api/v1/repos/ada/content/archive/${main}.tar.gz?rev=${main}`, ada.auth)
      assert.isTrue(immutable.body.equals(tar.body), "the immutable link answers the same bytes")

      const zip = yield* download("/api/v1/repos/ada/content/archive/main.zip", ada.auth)
      assert.strictEqual(zip.status, 200)
      assert.strictEqual(zip.headers.get("content-type"), "application/zip")
      assert.isTrue(zip.body.equals(yield* git(["archive", "--format=zip", "--prefix=content/", main], work)))
      const zipList = yield* listing("zip", zip.body)
      assert.match(zipList, /^-rwx\S* .* content\/run\.sh$/m)
      assert.match(zipList, /^l\S* .* content\/link-to-main$/m)
      const zipball = yield* download("/api/v1/repos/ada/content/zipball/main", ada.auth)
      assert.isTrue(zipball.body.equals(zip.body))

      const tag = yield* download("/api/v1/repos/ada/content/archive/v1.0.tar.gz", ada.auth)
      assert.isTrue(tag.body.equals(tar.body), "the tag names the same commit")
      const short = yield* download(`/api/v1/repos/ada/content/tarball/${main.slice(0, 7)}`, ada.auth)
      assert.isTrue(short.body.equals(tar.body))

      const slashed = yield* download("/api/v1/repos/ada/content/archive/feature/one.zip", ada.auth)
      assert.strictEqual(slashed.status, 200)
      assert.include(slashed.headers.get("content-disposition") ?? "", `filename="content-feature-one.zip"`)
      assert.isTrue(slashed.body.equals(yield* git(["archive", "--format=zip", "--prefix=content/", feature], work)))

      const bundle = yield* download("/api/v1/repos/ada/content/archive/main.bundle", ada.auth)
      assert.strictEqual(bundle.status, 200)
      assert.strictEqual(bundle.headers.get("content-type"), "application/octet-stream")
      const bundleDir = mkdtempSync(join(tmpdir(), "kiln-bundle-"))
      writeFileSync(join(bundleDir, "b.bundle"), bundle.body)
      yield* git(["clone", "--quiet", join(bundleDir, "b.bundle"), join(bundleDir, "clone")])
      assert.strictEqual((yield* git(["rev-parse", "HEAD"], join(bundleDir, "clone"))).toString().trim(), main)
      const again = yield* download("/api/v1/repos/ada/content/bundle/main", ada.auth)
      assert.isTrue(again.body.equals(bundle.body))
    }))

  it.effect("names archives of refs outside ASCII: UTF-8 in filename*, printable ASCII in filename", () =>
    Effect.gen(function*() {
      const uli = yield* createUser("uli")
      const { work, main } = yield* seedRepository(uli.auth, "uli", "names")
      // Node refused the header for a branch `日本` (a 500), and sent a tag `é` as one Latin-1 byte.
      yield* git(["branch", "日本", main], work)
      yield* git(["tag", "é", main], work)
      yield* git(["push", "--quiet", yield* bareRepositoryPath("uli", "names"), "日本", "é"], work)
      const expectedTar = yield* git(["archive", "--format=tar.gz", "--prefix=names/", main], work)
      const cases = [
        ["/api/v1/repos/uli/names/archive/%E6%97%A5%E6%9C%AC.tar.gz", "names-日本.tar.gz", "names-__.tar.gz"],
        ["/api/v1/repos/uli/names/tarball/%E6%97%A5%E6%9C%AC", "names-日本.tar.gz", "names-__.tar.gz"],
        ["/api/v1/repos/uli/names/archive/%C3%A9.tar.gz", "names-é.tar.gz", "names-_.tar.gz"]
      ] as const
      for (const [path, name, plain] of cases) {
        const answer = yield* download(path, uli.auth)
        assert.strictEqual(answer.status, 200, path)
        assert.isTrue(answer.body.equals(expectedTar), path)
        assert.strictEqual(
          answer.headers.get("content-disposition"),
          `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(name)}`
        )
      }
    }))

  it.effect("answers ranges, conditional requests and Forgejo's errors", () =>
    Effect.gen(function*() {
      const bo = yield* createUser("bo")
      yield* seedRepository(bo.auth, "bo", "ranged", { private: true })
      const full = yield* download("/api/v1/repos/bo/ranged/archive/main.zip", bo.auth)
      const etag = full.headers.get("etag") ?? ""
      assert.strictEqual(full.headers.get("accept-ranges"), "bytes")
      const part = yield* download("/api/v1/repos/bo/ranged/archive/main.zip", bo.auth, { range: "bytes=10-19" })
      assert.strictEqual(part.status, 206)
      assert.strictEqual(part.headers.get("content-range"), `bytes 10-19/${full.body.length}`)
      assert.isTrue(part.body.equals(full.body.subarray(10, 20)))
      const tail = yield* download("/api/v1/repos/bo/ranged/archive/main.zip", bo.auth, { range: "bytes=-5" })
      assert.isTrue(tail.body.equals(full.body.subarray(full.body.length - 5)))
      const beyond = yield* download("/api/v1/repos/bo/ranged/archive/main.zip", bo.auth, { range: `bytes=${full.body.length}-` })
      assert.strictEqual(beyond.status, 416)
      const cached = yield* download("/api/v1/repos/bo/ranged/archive/main.zip", bo.auth, { "if-none-match": etag })
      assert.strictEqual(cached.status, 304)

      const noExtension = yield* download("/api/v1/repos/bo/ranged/archive/main", bo.auth)
      assert.strictEqual(noExtension.status, 400)
      assert.strictEqual(JSON.parse(noExtension.body.toString()).message, "unknown format: main")
      const unknown = yield* download("/api/v1/repos/bo/ranged/archive/nope.zip", bo.auth)
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(JSON.parse(unknown.body.toString()).message, "unrecognized repository reference: nope")
      const anonymous = yield* download("/api/v1/repos/bo/ranged/archive/main.zip")
      assert.strictEqual(anonymous.status, 404)
    }))
})
