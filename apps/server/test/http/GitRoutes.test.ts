import { assert, describe, it } from "@effect/vitest"
import { isSmartHttpPath } from "../../src/http/GitRoutes.ts"

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
