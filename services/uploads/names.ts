/** The names of uploaded files (docs/uploads.md): what is kept of the client's name, and the name on disk. */

export const ORIGINAL_NAME_MAX = 255;
export const STORED_NAME_MAX = 100;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/gu;

/** The client's file name as the answer and the prompt give it: control characters dropped, bounded. */
export function originalNameOf(filename: string | undefined): string {
  const name = (filename ?? '').normalize('NFC').replace(CONTROL, '').trim();
  return Array.from(name).slice(0, ORIGINAL_NAME_MAX).join('') || 'file';
}

/**
 * The name a file gets on disk: only its last path segment (a browser may send "C:\dir\a.txt"), only
 * letters, digits and `._-` (anything else is `_`: no separator, no quote a prompt or a shell could
 * trip on), no leading dot (no hidden file, no `..`), at most STORED_NAME_MAX characters keeping the
 * extension; `file` when nothing is left.
 */
export function sanitisedFileName(filename: string): string {
  const last = filename.split(/[/\\]/).pop() ?? '';
  let name = last
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]/gu, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[._-]+/, '');
  const chars = Array.from(name);
  if (chars.length > STORED_NAME_MAX) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 ? Array.from(name.slice(dot)).slice(0, 16).join('') : '';
    name = chars.slice(0, STORED_NAME_MAX - Array.from(extension).length).join('') + extension;
  }
  return name || 'file';
}
