import { assert, describe, it } from "@effect/vitest"
import { isSmartHttpFetch, isSmartHttpPath } from "../../src/http/GitRoutes.ts"

describe("smart HTTP paths", () => {
  it("are the three git endpoints of a repository, the root URL's path stripped", () => {
    for (const path of ["/alice/demo.git/info/refs", "/alice/demo/info/refs", "/alice/demo.git/git-upload-pack", "/alice/demo/git-receive-pack"]) {
      assert.isTrue(isSmartHttpPath(path), path)
    }
    for (const path of [
      "/api/v1/repos/alice/demo/info/refs",
      "/api/v1/alice/git-upload-pack",
      "/alice/demo.git/info",
      "/alice/demo.git/git-upload-pack/extra",
      "/alice/git-upload-pack",
      "/x/alice/demo.git/info/refs"
    ]) {
      assert.isFalse(isSmartHttpPath(path), path)
    }
  })
})

describe("smart HTTP fetches", () => {
  it("are upload-pack's advertisement and negotiation; pushes and anything else are not", () => {
    for (const url of ["/alice/demo.git/info/refs?service=git-upload-pack", "/alice/demo/git-upload-pack", "/alice/demo.git/git-upload-pack?x=1"]) {
      assert.isTrue(isSmartHttpFetch(url), url)
    }
    for (const url of [
      "/alice/demo.git/info/refs?service=git-receive-pack",
      "/alice/demo.git/info/refs",
      "/alice/demo.git/info/refs?service=git-upload-pack&service=git-receive-pack",
      "/alice/demo/git-receive-pack",
      "/api/v1/repos/alice/demo/git-upload-pack",
      "/api/v1/repos/alice/demo"
    ]) {
      assert.isFalse(isSmartHttpFetch(url), url)
    }
  })
})
