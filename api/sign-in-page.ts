import { createHash } from 'node:crypto';

/**
 * The sign-in and sign-out pages (api/sign-in.ts): self-contained HTML in the panel's language and
 * colours, no script, no external resource, so they load before any session and under a strict
 * Content-Security-Policy. Messages are fixed strings of this module, never request input.
 */

const STYLE = `
:root { color-scheme: dark; }
* { box-sizing: border-box; margin: 0; padding: 0; }
body { min-height: 100vh; display: flex; align-items: center; justify-content: center;
  background: #0a0a0f; color: #e8e8ed; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: min(380px, 92vw); padding: 32px; background: linear-gradient(145deg, #14142a, #0e0e1a);
  border: 1px solid #1e1e2e; border-radius: 14px; box-shadow: 0 20px 60px rgba(0, 0, 0, 0.45); }
h1 { font-size: 20px; font-weight: 600; margin-bottom: 6px; }
p.lead { color: #9898a8; font-size: 14px; margin-bottom: 22px; }
label { display: block; font-size: 13px; color: #9898a8; margin-bottom: 6px; }
input { width: 100%; padding: 10px 12px; background: #0e0e18; color: #e8e8ed; border: 1px solid #2a2a3e;
  border-radius: 8px; font: inherit; }
input:focus { outline: none; border-color: #6366f1; box-shadow: 0 0 0 3px rgba(99, 102, 241, 0.15); }
button { width: 100%; margin-top: 18px; padding: 10px 12px; border: 0; border-radius: 8px; cursor: pointer;
  background: linear-gradient(135deg, #6366f1, #8b5cf6); color: #fff; font: inherit; font-weight: 600; }
button:hover { filter: brightness(1.1); }
.message { margin-bottom: 18px; padding: 10px 12px; border-radius: 8px; font-size: 14px;
  background: rgba(239, 68, 68, 0.12); border: 1px solid rgba(239, 68, 68, 0.4); color: #fca5a5; }
.brand { display: flex; align-items: center; gap: 10px; margin-bottom: 20px; color: #9898a8; font-size: 13px; }
.brand span { width: 10px; height: 10px; border-radius: 50%; background: linear-gradient(135deg, #6366f1, #8b5cf6); }
a { color: #818cf8; }
`;

/** The only style the pages may apply (CSP by hash: no 'unsafe-inline'). */
const STYLE_HASH = createHash('sha256').update(STYLE, 'utf8').digest('base64');

/**
 * Nothing but this page's own style; forms post to this origin only; no framing (clickjacking of the
 * sign-in), no base URL, no referrer.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** What the sign-in page says above its form, by outcome. */
export const SIGN_IN_MESSAGES = {
  invalid: 'Token inválido.',
  missing: 'Informe o token de acesso.',
  tooMany: 'Muitas tentativas. Tente novamente mais tarde.',
  unavailable: 'Não foi possível iniciar a sessão agora (Redis indisponível). Tente novamente em instantes.',
} as const;

export type SignInMessage = keyof typeof SIGN_IN_MESSAGES;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Agents Orchestrator</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<div class="brand"><span></span>Agents Orchestrator</div>
${body}
</main>
</body>
</html>
`;
}

/** The sign-in form: one password field `token`, posted to /sign-in. */
export function signInPage(message: SignInMessage | null): string {
  const shown = message === null ? '' : `<p class="message" role="alert" id="sign-in-message">${SIGN_IN_MESSAGES[message]}</p>\n`;
  return page(
    'Entrar',
    `<h1>Entrar</h1>
<p class="lead">Este servidor exige o token de acesso (AUTH_TOKEN) para abrir o painel.</p>
${shown}<form method="post" action="/sign-in">
<label for="token">Token de acesso</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit" id="sign-in-submit">Entrar</button>
</form>`,
  );
}

/** The page at GET /sign-out: one button that posts the sign-out (a GET never changes anything). */
export function signOutPage(): string {
  return page(
    'Sair',
    `<h1>Sair</h1>
<p class="lead">Encerra a sessão deste navegador no painel. O token continua válido; para entrar de novo, informe-o outra vez.</p>
<form method="post" action="/sign-out">
<button type="submit" id="sign-out-submit">Sair</button>
</form>`,
  );
}
