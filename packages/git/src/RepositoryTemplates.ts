/**
 * The built-in `readme`, `gitignores` and `license` templates of auto-initialised repositories,
 * rendered as Forgejo renders its own (README.md, `.gitignore` with `# ---> Name` sections, LICENSE
 * with year and owner filled in).
 */
import { readFile } from "node:fs/promises"
import { Effect } from "effect"
import { Invalid } from "@kiln/domain/errors"
import type { InitialFile } from "@kiln/domain/git/GitStorage"

export const readmeTemplates: ReadonlyArray<string> = ["Default"]
export const gitignoreTemplates: ReadonlyArray<string> = ["Go", "Node", "Python"]
export const licenseTemplates: ReadonlyArray<string> = ["Apache-2.0", "MIT"]

export interface TemplateChoice {
  readonly owner: string
  readonly name: string
  readonly description: string
  readonly year: number
  /** Forgejo defaults this to `Default` when `auto_init` is set. */
  readonly readme: string
  readonly gitignores: ReadonlyArray<string>
  readonly license?: string
}

const templateText = (kind: "readme" | "gitignore" | "license", name: string) =>
  Effect.promise(() => readFile(new URL(`./templates/${kind}/${name}`, import.meta.url), "utf8"))

const fill = (text: string, values: Readonly<Record<string, string>>) =>
  Object.entries(values).reduce((result, [placeholder, value]) => result.replaceAll(placeholder, value), text)

/** The files of the initial commit. Unknown template names fail with Forgejo's wording. */
export const renderInitialFiles = (choice: TemplateChoice): Effect.Effect<ReadonlyArray<InitialFile>, Invalid> =>
  Effect.gen(function*() {
    if (!readmeTemplates.includes(choice.readme)) {
      return yield* new Invalid({
        message: `readme template does not exist, available templates: [${readmeTemplates.join(" ")}]`,
        field: "readme"
      })
    }
    const unknownGitignore = choice.gitignores.find((name) => !gitignoreTemplates.includes(name))
    if (unknownGitignore !== undefined) {
      return yield* new Invalid({ message: `gitignore template does not exist: ${unknownGitignore}`, field: "gitignores" })
    }
    if (choice.license !== undefined && !licenseTemplates.includes(choice.license)) {
      return yield* new Invalid({ message: `license template does not exist: ${choice.license}`, field: "license" })
    }

    const readme = fill(yield* templateText("readme", choice.readme), {
      "{Name}": choice.name,
      "{Description}": choice.description,
      "{OwnerName}": choice.owner
    })
    const files: Array<InitialFile> = [{ path: "README.md", content: readme }]
    if (choice.gitignores.length > 0) {
      const sections = yield* Effect.forEach(choice.gitignores, (name) =>
        Effect.map(templateText("gitignore", name), (text) => `# ---> ${name}\n${text}\n`))
      files.push({ path: ".gitignore", content: sections.join("") })
    }
    if (choice.license !== undefined) {
      const year = String(choice.year)
      files.push({
        path: "LICENSE",
        content: fill(yield* templateText("license", choice.license), {
          "<year>": year,
          "[yyyy]": year,
          "<copyright holders>": choice.owner,
          "[name of copyright owner]": choice.owner
        })
      })
    }
    return files
  })
