/**
 * The ref listings a server process keeps between git requests (KeptListings), one set for smart
 * HTTP and SSH: a push over either carries them forward for a fetch over either.
 */
import { Context, Layer } from "effect"
import { KeptListings } from "@kiln/git"

export class GitListings extends Context.Service<GitListings, KeptListings>()("@kiln/server/git/GitListings") {}

export const layer = Layer.sync(GitListings, () => new KeptListings())
