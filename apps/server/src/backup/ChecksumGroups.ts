/**
 * Which checksum of the manifest an archive entry counts in: one per database table, one per
 * repository, one for the attachments, one for the package files, one for the LFS objects, one per
 * other file. Per group
 * rather than per file, so the manifest stays small with millions of git objects.
 */
export const checksumGroup = (path: string): string => {
  const parts = path.split("/")
  if (parts[0] === "database" && parts.length > 2) return `database/${parts[1]}`
  if (parts[0] === "repositories" && parts.length > 2) return `repositories/${parts[1]}/${parts[2]}`
  if (parts[0] === "attachments" || parts[0] === "packages" || parts[0] === "lfs") return parts[0]
  return path
}
