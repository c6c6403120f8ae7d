import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { ConsoleSession } from '../../../tenancy/console-sessions.ts';

export const NAV = [
  ['overview', 'Overview', '/console'],
  ['conversations', 'Conversations', '/console/conversations'],
  ['gaps', 'Coverage gaps', '/console/gaps'],
  ['questions', 'Top questions', '/console/questions'],
  ['pages', 'Pages', '/console/pages'],
  ['feedback', 'Feedback', '/console/feedback'],
  ['sites', 'Sites', '/console/sites'],
  ['keys', 'Keys', '/console/keys'],
  ['usage', 'Plan and usage', '/console/usage'],
] as const;

export type Screen = (typeof NAV)[number][0];

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#111827;background:#f6f7f9}
a{color:#1d4ed8}header.top{display:flex;align-items:center;gap:1rem;padding:.7rem 1.5rem;background:#0f172a;color:#e5e7eb}
header.top strong{font-size:1.05rem}header.top .org{color:#94a3b8}header.top form{margin-left:auto}
header.top button{background:transparent;color:#e5e7eb;border:1px solid #475569;border-radius:6px;padding:.3rem .7rem;cursor:pointer}
.shell{display:flex;min-height:calc(100vh - 52px)}nav.side{flex:0 0 13rem;padding:1rem;background:#fff;border-right:1px solid #e5e7eb}
nav.side a{display:block;padding:.4rem .6rem;border-radius:6px;color:#1f2937;text-decoration:none}
nav.side a[aria-current=page]{background:#e0e7ff;color:#1e3a8a;font-weight:600}
main{flex:1;min-width:0;padding:1.2rem 1.8rem 4rem}h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.6rem 0 .6rem}h2.group{font-size:1em;margin:0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.8rem}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:.8rem 1rem}.card .label{color:#4b5563;font-size:.85rem}
.card .value{font-size:1.5rem;font-weight:650}table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e5e7eb;border-radius:10px}
th,td{text-align:left;padding:.5rem .7rem;border-bottom:1px solid #eef0f3;vertical-align:top}th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#4b5563}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin-bottom:1rem}form.filters label{display:flex;flex-direction:column;font-size:.8rem;color:#374151}
input,select,textarea,button{font:inherit}input,select,textarea{padding:.35rem .5rem;border:1px solid #cbd5e1;border-radius:6px;background:#fff}
button.primary{background:#1d4ed8;color:#fff;border:0;border-radius:6px;padding:.45rem .9rem;cursor:pointer}
button.secondary{background:#fff;color:#1f2937;border:1px solid #cbd5e1;border-radius:6px;padding:.35rem .8rem;cursor:pointer}
button.danger{background:#fff;color:#b91c1c;border:1px solid #fca5a5;border-radius:6px;padding:.35rem .8rem;cursor:pointer}
button:disabled{opacity:.45;cursor:not-allowed}
td,.card{overflow-wrap:anywhere}td.word{overflow-wrap:break-word}td.path{min-width:8rem}
.muted{color:#4b5563}.badge{display:inline-block;padding:.05rem .45rem;border-radius:999px;font-size:.78rem;background:#e5e7eb}
.badge.ok{background:#dcfce7;color:#166534}.badge.bad{background:#fee2e2;color:#991b1b}.badge.warn{background:#fef3c7;color:#92400e}
.notice{background:#ecfdf5;border:1px solid #a7f3d0;border-radius:8px;padding:.7rem 1rem;margin-bottom:1rem}
.secret{display:block;width:100%;font-family:ui-monospace,monospace;background:#111827;color:#f9fafb;padding:.4rem .6rem;border:0;border-radius:6px;resize:none;field-sizing:content}
.msg{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:.7rem 1rem;margin:.6rem 0;overflow-wrap:anywhere}.msg.user{border-left:4px solid #1d4ed8}
.msg pre{white-space:pre-wrap;font:inherit;margin:.3rem 0}.msg .answer>*{margin:.35rem 0}
.msg .answer pre{font:13px/1.45 ui-monospace,monospace;background:#f3f4f6;padding:.5rem .7rem;border-radius:6px}
.msg .answer code{font-family:ui-monospace,monospace;font-size:.9em}.chart{background:#fff;border:1px solid #e5e7eb;border-radius:10px;padding:.6rem;margin-top:1rem;min-height:260px}
.when{white-space:nowrap}main a[aria-current=page]{font-weight:650;color:#111827;text-decoration:none}
.skip{position:absolute;left:.5rem;top:-3rem;z-index:10;background:#fff;color:#1d4ed8;padding:.4rem .8rem;border-radius:6px}.skip:focus{top:.5rem}main:focus{outline:none}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.stack>*+*{margin-top:.6rem}.row{display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
@media (max-width:760px){header.top{padding:.6rem .8rem}.shell{flex-direction:column}
nav.side{flex:none;display:flex;gap:.2rem;overflow-x:auto;padding:.4rem .6rem;border-right:0;border-bottom:1px solid #e5e7eb}
nav.side a{white-space:nowrap}main{padding:1rem .8rem 3rem}table{display:block;overflow-x:auto}
input,select,textarea,.row>*{max-width:100%}}
`;

/** Every console page: the top bar (organization, sign out), the screens, and the page's own content. */
export function Layout(props: {
  title: string;
  session: ConsoleSession;
  active: Screen | null;
  scriptSrc: string | null;
  children: Child;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{`${props.title} · Docent console`}</title>
        {/* No icon to fetch: without this the browser asks for /favicon.ico, a 404 in every page's console. */}
        <link rel="icon" href="data:," />
        <style>{raw(STYLE)}</style>
        {props.scriptSrc ? <script src={props.scriptSrc} defer /> : null}
      </head>
      <body>
        {/* The first Tab stop: past the top bar and the screens' links (ten stops) to the page itself. */}
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <strong>Docent console</strong>
          <span class="org">{props.session.organization.name}</span>
          <form method="post" action="/console/logout">
            <input type="hidden" name="_csrf" value={props.session.csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </header>
        <div class="shell">
          <nav class="side" aria-label="Console">
            {NAV.map(([id, label, href]) => (
              <a href={href} aria-current={props.active === id ? 'page' : undefined}>
                {label}
              </a>
            ))}
          </nav>
          <main id="main" tabindex={-1}>
            <h1>{props.title}</h1>
            {props.children}
            {/* Ranges, days and times are read and shown in UTC everywhere, whatever the owner's zone. */}
            <p class="muted">Times and days are in UTC.</p>
          </main>
        </div>
      </body>
    </html>
  );
}

/** The hidden CSRF field every console form carries. */
/**
 * A refused field's attributes: marked invalid, described by its message(s) (element ids), and focused
 * unless another refused field comes first, so a screen reader reads the field with what is wrong with it.
 */
export function refusedField(errorIds: string, focus = true) {
  return { 'aria-invalid': 'true', 'aria-describedby': errorIds, ...(focus ? { autofocus: true } : {}) };
}

export function Csrf(props: { session: ConsoleSession }) {
  return <input type="hidden" name="_csrf" value={props.session.csrfToken} />;
}
