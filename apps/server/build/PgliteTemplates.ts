/**
 * A bundle entry point the build runs once after bundling (ServerBundle.ts): it makes the embedded
 * database's templates where the bundled server looks for them (Database.prepareTemplates).
 */
import { Database } from "@kiln/postgres"

await Database.prepareTemplates()
