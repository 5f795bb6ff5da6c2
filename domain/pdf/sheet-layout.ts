import { html, SafeHtml } from './html';

/**
 * The page shell shared by the sheets: A4, one inline style sheet, system fonts only. The
 * Content-Security-Policy forbids every fetch (scripts, styles, images, fonts from anywhere), so
 * even a value that slipped past escaping could not make the renderer reach the network.
 */

const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:";

/** What the renderer prints: A4 pages of `html` with `margin`, `footerHtml` at the bottom of each. */
export interface PdfDocument {
  html: string;
  footerHtml: string;
  margin: { top: string; right: string; bottom: string; left: string };
}

/** Page margins (the footer is drawn in the bottom one). */
export const PAGE_MARGINS: PdfDocument['margin'] = { top: '14mm', right: '14mm', bottom: '16mm', left: '14mm' };

const STYLE = `
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 9pt;
  line-height: 1.3; color: #1f2933; }
header.sheet { border-bottom: 2px solid #1d4e89; padding-bottom: 6px; margin-bottom: 8px; }
header.sheet .kind { font-size: 8pt; letter-spacing: 0.08em; text-transform: uppercase; color: #1d4e89; font-weight: bold; }
header.sheet h1 { font-size: 16pt; margin: 2px 0 3px; color: #102a43; overflow-wrap: anywhere; }
header.sheet .meta { color: #52606d; font-size: 8.5pt; }
header.sheet .meta span + span::before { content: "·"; margin: 0 6px; color: #9aa5b1; }
h2 { font-size: 10pt; color: #1d4e89; margin: 8px 0 4px; padding-bottom: 2px; border-bottom: 1px solid #d9e2ec;
  break-after: avoid; }
section { break-inside: avoid-page; }
.cards { display: flex; gap: 6px; flex-wrap: nowrap; }
.card { flex: 1 1 0; border: 1px solid #d9e2ec; border-radius: 4px; padding: 4px 7px; background: #f5f7fa; min-width: 0; }
.card.main { background: #1d4e89; border-color: #1d4e89; color: #fff; }
.card .label { font-size: 7.5pt; color: #52606d; text-transform: uppercase; letter-spacing: 0.04em; }
.card.main .label { color: #d9e8f6; }
.card .value { font-size: 13pt; font-weight: bold; margin-top: 1px; }
.card .hint { font-size: 7pt; color: #7b8794; }
.card.main .hint { color: #d9e8f6; }
.notice { border: 1px solid #f0b429; background: #fffbea; padding: 6px 8px; border-radius: 4px; color: #8d2b0b; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; }
.chip { border: 1px solid #9fb3c8; background: #f0f4f8; border-radius: 10px; padding: 1px 8px; font-size: 8.5pt; }
table { width: 100%; border-collapse: collapse; font-size: 8.5pt; table-layout: fixed; }
thead { display: table-header-group; }
th { text-align: left; background: #f0f4f8; color: #334e68; font-weight: bold; padding: 3px 5px;
  border-bottom: 1px solid #bcccdc; }
td { padding: 2px 5px; border-bottom: 1px solid #e4e7eb; vertical-align: top; overflow-wrap: anywhere; }
tr { break-inside: avoid; }
td.num, th.num { text-align: right; white-space: nowrap; overflow-wrap: normal; }
td.center, th.center { text-align: center; white-space: nowrap; overflow-wrap: normal; }
.muted { color: #7b8794; }
.small { font-size: 7.5pt; color: #52606d; }
ul.plain { margin: 0; padding-left: 14px; }
ul.plain li { margin: 1px 0; }
.empty { color: #7b8794; font-style: italic; }
`;
/** A constant of this module, not user text. */
const STYLE_SHEET = new SafeHtml(STYLE);

/** A sheet as the renderer takes it: the page with its title and body, and the footer text. */
export function sheetDocument(title: string, body: SafeHtml, footerText: string): PdfDocument {
  return { html: sheetHtml(title, body), footerHtml: sheetFooter(footerText), margin: PAGE_MARGINS };
}

/** A complete HTML document for page.setContent. */
function sheetHtml(title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="pt-BR"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<title>${title}</title>
<style>${STYLE_SHEET}</style>
</head><body>${body}</body></html>`.markup;
}

/**
 * The footer page.pdf prints on every page (its own tiny document: styles inline). `pageNumber` and
 * `totalPages` are filled in by Chromium.
 */
function sheetFooter(text: string): string {
  return html`<div style="width:100%;font-family:'DejaVu Sans',Arial,sans-serif;font-size:7px;color:#7b8794;padding:0 14mm;display:flex;justify-content:space-between;gap:8px"><span style="overflow:hidden;white-space:nowrap;text-overflow:ellipsis">${text}</span><span style="white-space:nowrap">Página <span class="pageNumber"></span> de <span class="totalPages"></span></span></div>`
    .markup;
}
