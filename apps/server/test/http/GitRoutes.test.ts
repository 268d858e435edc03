import { assert, describe, it } from "@effect/vitest"
import { isSmartHttpPath } from "../../src/http/GitRoutes.ts"

describe("smart HTTP paths", () => {
  it("are the three git endpoints of a repository right under the root path", () => {
    for (const path of ["/alice/demo.git/info/refs", "/alice/demo/info/refs", "/alice/demo.git/git-upload-pack", "/alice/demo/git-receive-pack"]) {
      assert.isTrue(isSmartHttpPath("/", path), path)
      assert.isTrue(isSmartHttpPath("/forge/", `/forge${path}`), path)
    }
    for (const path of [
      "/api/v1/repos/alice/demo/info/refs",
      "/api/v1/alice/git-upload-pack",
      "/alice/demo.git/info",
      "/alice/demo.git/git-upload-pack/extra",
      "/alice/git-upload-pack",
      "/x/alice/demo.git/info/refs"
    ]) {
      assert.isFalse(isSmartHttpPath("/", path), path)
    }
    assert.isFalse(isSmartHttpPath("/forge/", "/alice/demo.git/info/refs"))
  })
})
