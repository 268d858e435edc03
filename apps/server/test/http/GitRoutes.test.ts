import { assert, describe, it } from "@effect/vitest"
import { isSmartHttpPath, isSmartHttpRead } from "../../src/http/GitRoutes.ts"

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

describe("smart HTTP reads", () => {
  it("are the ref advertisements and upload-pack's negotiation; receive-pack and anything else are not", () => {
    for (const url of [
      "/alice/demo.git/info/refs?service=git-upload-pack",
      "/alice/demo.git/info/refs?service=git-receive-pack",
      "/alice/demo.git/info/refs",
      "/alice/demo/git-upload-pack",
      "/alice/demo.git/git-upload-pack?x=1"
    ]) {
      assert.isTrue(isSmartHttpRead(url), url)
    }
    for (const url of ["/alice/demo/git-receive-pack", "/alice/demo.git/git-receive-pack?x=1", "/api/v1/repos/alice/demo/git-upload-pack", "/api/v1/repos/alice/demo"]) {
      assert.isFalse(isSmartHttpRead(url), url)
    }
  })
})
