import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { InvalidInputError } from '../../services/errors';
import type { SaveFile } from '../../services/uploads';

/**
 * POST /uploads's body (contract 3.13): multipart/form-data whose files are parts named `files`,
 * parsed by busboy as it streams (nothing is held whole in memory), with its bounds. Any other part
 * (a text field, a file under another name) is refused.
 */

export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
}

const FILE_PART = 'files';
/** Parts besides the files: a form may carry a few small fields, refused below, but they are parsed within bounds. */
const OTHER_PARTS = 10;

/** Refused at once, before reading anything: not multipart/form-data. */
export function assertMultipart(headers: IncomingHttpHeaders): void {
  const type = String(headers['content-type'] ?? '');
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw new InvalidInputError('O corpo deve ser multipart/form-data, com os arquivos em partes chamadas "files"');
  }
}

/**
 * Reads the whole request, handing each file part to `save` one after the other. The request is read
 * to its end even when a part is refused (a client that is still sending would not read the answer);
 * busboy drops what is over its limits meanwhile. Rejects with the first refusal.
 */
export function readMultipartFiles(req: IncomingMessage, limits: MultipartLimits, save: SaveFile): Promise<void> {
  assertMultipart(req.headers);
  return new Promise<void>((resolve, reject) => {
    let failure: Error | null = null;
    const fail = (error: unknown) => (failure ??= error instanceof Error ? error : new Error(String(error)));
    let saving: Promise<void> = Promise.resolve();
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // Browsers send UTF-8 file names.
        defParamCharset: 'utf8',
        // busboy marks a file that reaches its limit as cut, so one byte more: the saver refuses what is over.
        limits: {
          fileSize: limits.maxFileBytes + 1,
          files: limits.maxFiles,
          parts: limits.maxFiles + OTHER_PARTS,
          fields: OTHER_PARTS,
          fieldSize: 1024,
        },
      });
    } catch (error) {
      reject(new InvalidInputError(`Corpo multipart inválido; o analisador diz: ${(error as Error).message}`));
      return;
    }
    // busboy gives a part without a name (`name=""`) as undefined: a handler that threw here would be an
    // uncaught exception in the parser's stream, ending the process (found by schemathesis).
    parser.on('file', (name: string | undefined, stream: Readable, info: busboy.FileInfo) => {
      if (failure !== null || name !== FILE_PART) {
        if (name !== FILE_PART)
          fail(
            new InvalidInputError(`Parte inesperada "${(name ?? '').slice(0, 100)}": os arquivos vão em partes chamadas "${FILE_PART}"`),
          );
        stream.resume();
        return;
      }
      // A form's empty file input sends a part without a file name: nothing to keep.
      const filename = info.filename;
      if (!filename) {
        stream.resume();
        return;
      }
      saving = saving
        .then(() => (failure === null ? save(filename, stream) : void stream.resume()))
        .catch((error: unknown) => {
          fail(error);
          stream.resume();
        });
    });
    parser.on('field', (name: string | undefined) =>
      fail(new InvalidInputError(`Campo inesperado "${(name ?? '').slice(0, 100)}": somente arquivos, em partes chamadas "${FILE_PART}"`)),
    );
    parser.on('filesLimit', () => fail(new InvalidInputError(`Arquivos demais: no máximo ${limits.maxFiles} por envio`)));
    parser.on('partsLimit', () => fail(new InvalidInputError(`Partes demais: no máximo ${limits.maxFiles} arquivos por envio`)));
    parser.on('error', (error: Error) => {
      req.unpipe(parser);
      req.resume();
      const refusal = fail(new InvalidInputError(`Corpo multipart inválido; o analisador diz: ${error.message}`));
      void saving.then(() => reject(refusal));
    });
    parser.on('close', () => {
      void saving.then(() => (failure === null ? resolve() : reject(failure)));
    });
    // A client gone mid-body: the parser never sees the end, so it is stopped; the file being written
    // fails, and the caller removes what was written.
    req.once('close', () => {
      if (req.complete) return;
      const interrupted = new InvalidInputError('O envio foi interrompido');
      fail(interrupted);
      parser.destroy(interrupted);
    });
    req.pipe(parser);
  });
}
