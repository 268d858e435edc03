export { BlobStorageLive, makeBlobStorage } from "./BlobStorageLive.ts"
