// Uploads (docs/uploads.md): receiving files, checking an execute's context files, retention.
export { FileTooLargeError, receiveUploads, receivedUploadsSchema, type SaveFile } from './store';
export { CONTEXT_FILES_MAX, storedContextFiles, withContextFiles, type ContextFileRequest } from './context-files';
export { removeExpiredUploads, type UploadsRetentionPass } from './retention';
