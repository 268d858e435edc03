export { blobPath, BlobStorageLive, makeBlobStorage } from "./BlobStorageLive.ts"
