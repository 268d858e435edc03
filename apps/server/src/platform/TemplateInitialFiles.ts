/** The InitialFiles port over `@kiln/git`'s built-in readme, gitignore and license templates. */
import { Layer } from "effect"
import { renderInitialFiles } from "@kiln/git"
import { InitialFiles } from "@kiln/domain/repo/InitialFiles"

export const layer = Layer.succeed(InitialFiles, InitialFiles.of({ render: renderInitialFiles }))
