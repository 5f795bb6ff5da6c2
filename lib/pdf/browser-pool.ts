import { once } from 'node:events';
import { constants as fsConstants } from 'node:fs';
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, PDFOptions } from 'puppeteer-core';
import { config } from '../config';
import type { Logger } from '../logger';
import { Semaphore } from './semaphore';

/**
 * A page to print: its HTML, the footer drawn on every page, and the page margins (CSS lengths). The
 * sheets' templates (domain/pdf/sheet-layout.ts) build documents of this shape; each layer states it
 * on its own, as neither may import the other.
 */
export interface PdfDocument {
  html: string;
  footerHtml: string;
  margin: { top: string; right: string; bottom: string; left: string };
}

/**
 * Renders HTML documents to PDF with one Chromium (docs/pdf.md, "Rendering"):
 * - the browser is launched on the first document, never per request, and reused;
 * - each document gets a fresh page, closed in `finally` whatever happens; the pages of a browser
 *   live in one private (in-memory) browser context made at launch. A context per document
 *   costs a renderer process start per document, about twice the CPU (measured, docs/pdf.md), and
 *   what it would isolate (cookies, storage, cache) a sheet never uses: no script runs, nothing is
 *   fetched;
 * - at most `concurrency` documents render at once, the others wait their turn, at most
 *   `queueLimit` of them: one more is refused at once with QueueFullError (the route's 503);
 * - after `restartAfter` documents the browser is retired: new documents go to a fresh browser and
 *   the old one closes when its last document is done (Chromium's memory does not grow for ever);
 * - a browser that crashed or disconnected is replaced by the next document; a document whose
 *   browser dies under it is retried once on the replacement;
 * - each browser has its own user-data directory, removed when it is gone; directories of processes
 *   that died without cleaning up are removed at the first launch.
 */

export interface BrowserPoolOptions {
  executablePath: string;
  concurrency: number;
  /** Documents that may wait for a place; one more is refused (QueueFullError). */
  queueLimit: number;
  restartAfter: number;
  /** Bound of each step of a render (launch, page load, printing) and of every DevTools call. */
  timeoutMs: number;
  /**
   * Chromium's own sandbox (default: CHROMIUM_SANDBOX). Off where the container is the boundary
   * (docs/image.md, "Chromium"); never for root, where Chromium refuses to start with it.
   */
  sandbox?: boolean;
  logger: Logger;
}

export interface BrowserPoolStatus {
  /** Browsers launched since the pool was made (a launch that failed counts too). */
  launches: number;
  /** Documents rendered successfully. */
  documents: number;
  /** Process id of the browser that takes the next document, when one is running. */
  pid: number | null;
  /** User-data directory of that browser. */
  userDataDir: string | null;
  /** Pages open in that browser: one per document rendering now, none when idle. */
  pages: number;
  /** Browsers not yet disposed (the current one plus retired ones finishing their documents). */
  browsers: number;
  running: number;
  waiting: number;
}

/** One browser and its bookkeeping. */
class Instance {
  /** The launch, ending with the context documents open their pages in; set by BrowserPool.launch. */
  ready!: Promise<BrowserContext>;
  browser: Browser | null = null;
  userDataDir: string | null = null;
  pid: number | null = null;
  /** Documents handed to this browser; it retires at `restartAfter`. */
  taken = 0;
  active = 0;
  /** Crashed, disconnected or failed to launch: never handed another document. */
  lost = false;
  retired = false;
  disposal: Promise<void> | null = null;
}

/** `pdf-chromium-<pid of this process>-XXXXXX`: the pid tells whose directory it is. */
const USER_DATA_PREFIX = `pdf-chromium-${process.pid}-`;
const USER_DATA_DIR = /^pdf-chromium-(\d+)-/;
// Hinting off: glyph metrics as designed, so the printed layout matches the one computed.
const CHROMIUM_ARGS = ['--disable-gpu', '--font-render-hinting=none'];

export class BrowserPool {
  private readonly slots: Semaphore;
  private current: Instance | null = null;
  private readonly instances = new Set<Instance>();
  private launches = 0;
  private documents = 0;
  private closed = false;
  private orphansRemoved: Promise<void> | null = null;

  constructor(private readonly options: BrowserPoolOptions) {
    this.slots = new Semaphore(options.concurrency, options.queueLimit);
  }

  /**
   * The PDF bytes of `document`; rejects with the cause when the browser cannot produce them, and
   * with QueueFullError at once when `queueLimit` documents already wait.
   */
  render(document: PdfDocument): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the PDF renderer is shut down'));
    return this.slots.use(() => this.renderReplacingLostBrowser(document));
  }

  async status(): Promise<BrowserPoolStatus> {
    const current = this.current && !this.current.lost ? this.current : null;
    const context = current?.browser?.connected ? await current.ready.catch(() => null) : null;
    return {
      launches: this.launches,
      documents: this.documents,
      pid: current?.pid ?? null,
      userDataDir: current?.userDataDir ?? null,
      pages: context ? (await context.pages()).length : 0,
      browsers: this.instances.size,
      ...this.slots.load,
    };
  }

  /** Closes every browser and removes their directories (process shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    this.current = null;
    await Promise.all([...this.instances].map((instance) => this.dispose(instance)));
  }

  private async renderReplacingLostBrowser(document: PdfDocument): Promise<Buffer> {
    const first = this.take();
    try {
      return await this.renderOn(first, document);
    } catch (error) {
      // Only a browser that was running and then went away earns a second try; a launch failure or
      // a document that fails on a healthy browser would fail the same way again.
      if (this.closed || !this.wasLost(first)) throw error;
      this.options.logger.warn({ err: error, pid: first.pid }, 'browser lost during a render; retrying on a new browser');
    } finally {
      this.release(first);
    }
    const second = this.take();
    try {
      return await this.renderOn(second, document);
    } finally {
      this.release(second);
    }
  }

  /** Whether a browser that had started is gone (checked now: its disconnect event may still be on its way). */
  private wasLost(instance: Instance): boolean {
    if (!instance.browser) return false;
    if (!instance.browser.connected) this.markLost(instance);
    return instance.lost;
  }

  private async renderOn(instance: Instance, document: PdfDocument): Promise<Buffer> {
    const context = await instance.ready;
    const page = await context.newPage();
    try {
      await page.setContent(document.html, { waitUntil: 'load', timeout: this.options.timeoutMs });
      const pdf = await page.pdf(this.printOptions(document));
      this.documents += 1;
      return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
    } finally {
      // After a crash there is nothing left to close; the render's own error is the one that matters.
      await page.close().catch((error: unknown) => {
        if (instance.browser?.connected) this.options.logger.warn({ err: error }, 'closing a PDF page failed');
      });
    }
  }

  private printOptions(document: PdfDocument): PDFOptions {
    return {
      format: 'A4',
      printBackground: true,
      margin: document.margin,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: document.footerHtml,
      timeout: this.options.timeoutMs,
    };
  }

  /** The browser for the next document: the current one, or a new one when there is none usable. */
  private take(): Instance {
    let instance = this.current;
    if (!instance || instance.lost) {
      instance = this.launch();
      this.current = instance;
    }
    instance.taken += 1;
    instance.active += 1;
    if (instance.taken >= this.options.restartAfter) {
      instance.retired = true;
      this.current = null;
    }
    return instance;
  }

  private release(instance: Instance): void {
    instance.active -= 1;
    if (instance.active === 0 && (instance.retired || instance.lost)) void this.dispose(instance);
  }

  private launch(): Instance {
    this.launches += 1;
    const instance = new Instance();
    instance.ready = this.startBrowser(instance);
    instance.ready.catch((error: unknown) => {
      this.options.logger.error({ err: error, executablePath: this.options.executablePath }, 'PDF browser failed to start');
      this.markLost(instance);
    });
    this.instances.add(instance);
    return instance;
  }

  private async startBrowser(instance: Instance): Promise<BrowserContext> {
    await this.checkExecutable();
    this.orphansRemoved ??= this.removeOrphanedUserDataDirs();
    await this.orphansRemoved;
    // Loaded on first use: processes that never print (workers) do not pay for it.
    const { default: puppeteer } = await import('puppeteer-core');
    instance.userDataDir = await mkdtemp(path.join(os.tmpdir(), USER_DATA_PREFIX));
    const browser = await puppeteer.launch({
      executablePath: this.options.executablePath,
      headless: true,
      userDataDir: instance.userDataDir,
      args: this.sandboxed() ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, '--no-sandbox'],
      // Shutdown is ours (close(), called by closeApiResources): puppeteer's own handlers would kill the browser mid-drain.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: this.options.timeoutMs,
      protocolTimeout: this.options.timeoutMs,
    });
    instance.browser = browser;
    instance.pid = browser.process()?.pid ?? null;
    browser.once('disconnected', () => {
      if (!instance.disposal)
        this.options.logger.warn({ pid: instance.pid }, 'PDF browser disconnected; the next document starts a new one');
      this.markLost(instance);
    });
    // Private: kept in memory, nothing of the documents is written to the user-data directory.
    const context = await browser.createBrowserContext();
    this.options.logger.info({ pid: instance.pid, userDataDir: instance.userDataDir }, 'PDF browser started');
    return context;
  }

  /** Chromium refuses to run as root with its sandbox on; otherwise as the option (CHROMIUM_SANDBOX) says. */
  private sandboxed(): boolean {
    return process.getuid?.() !== 0 && (this.options.sandbox ?? config.pdf.chromiumSandbox);
  }

  /** A clear cause for a wrong CHROMIUM_PATH, before puppeteer tries (and lingers 5 s cleaning up). */
  private async checkExecutable(): Promise<void> {
    const { executablePath } = this.options;
    try {
      await access(executablePath, fsConstants.X_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw new Error(`o Chromium em ${executablePath} não pode ser executado (${code}); verifique CHROMIUM_PATH`, { cause: error });
    }
  }

  /**
   * Directories left by a process that died without closing its browsers (killed, crashed): those
   * whose owner pid no longer runs. Once per pool; another live process's directories are left alone.
   */
  private async removeOrphanedUserDataDirs(): Promise<void> {
    const tmp = os.tmpdir();
    const names = await readdir(tmp).catch(() => []);
    for (const name of names) {
      const owner = Number(USER_DATA_DIR.exec(name)?.[1]);
      if (!owner || owner === process.pid || isRunning(owner)) continue;
      await rm(path.join(tmp, name), { recursive: true, force: true }).catch((error: unknown) =>
        this.options.logger.warn({ err: error, dir: name }, 'removing an orphaned PDF browser directory failed'),
      );
    }
  }

  private markLost(instance: Instance): void {
    instance.lost = true;
    if (this.current === instance) this.current = null;
    if (instance.active === 0) void this.dispose(instance);
  }

  /** Closes (or, failing that, kills) a browser, waits for its process, removes its directory. Once. */
  private dispose(instance: Instance): Promise<void> {
    instance.disposal ??= (async () => {
      await instance.ready.catch(() => undefined);
      if (instance.browser) await this.stopBrowser(instance.browser);
      if (instance.userDataDir) await rm(instance.userDataDir, { recursive: true, force: true, maxRetries: 3 });
      this.instances.delete(instance);
    })().catch((error: unknown) => {
      this.instances.delete(instance);
      this.options.logger.error({ err: error, pid: instance.pid, userDataDir: instance.userDataDir }, 'disposing of a PDF browser failed');
    });
    return instance.disposal;
  }

  private async stopBrowser(browser: Browser): Promise<void> {
    const child = browser.process();
    const exited = child && child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.timeoutMs);
    });
    try {
      const outcome = await Promise.race([
        browser.close().then(
          () => 'closed' as const,
          () => 'failed' as const,
        ),
        deadline,
      ]);
      if (outcome !== 'closed') child?.kill('SIGKILL');
      await Promise.race([exited, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
