/**
 * The panel's CSS, added to the widget's shadow root when the panel loads (launcher-styles.ts has the rest).
 * A pressed vote is shown by its fill, which forced colours (Windows high contrast) drop: there it is filled
 * with the system's Highlight instead, or Helpful and Not helpful would look the same pressed or not.
 * Placeholders are in the muted text colour: the browser's own grey is 3.8:1 on the dark background.
 * The text boxes' edges are mixed from the text and background colours (3:1 or more, in any theme built
 * from them): the border colour, fine for dividers, is 1.4:1, and an empty box showed no edge to find.
 * Source links are a list, not words in a sentence: 6 px apart, each has the 24 px a finger needs.
 */
export const PANEL_STYLES = `
.panel{position:fixed;right:20px;bottom:20px;width:min(440px,calc(100vw - 40px));height:min(680px,calc(100vh - 40px));
display:flex;flex-direction:column;background:var(--docent-bg);color:var(--docent-fg);font:15px/1.55 var(--docent-font);
text-align:start;border:1px solid var(--docent-border);border-radius:var(--docent-radius);box-shadow:var(--docent-shadow);overflow:hidden}
:host([data-position=bottom-left]) .panel{right:auto;left:20px}
@media (max-width:640px){.panel,:host([data-position=bottom-left]) .panel{inset:0;width:100%;height:100%;border-radius:0;border:0}}
header{display:flex;align-items:center;gap:8px;padding:12px 14px;border-bottom:1px solid var(--docent-border)}
header h2{flex:1;margin:0;font:600 16px/1.3 var(--docent-font);color:var(--docent-fg)}
.ghost{border:1px solid var(--docent-border);background:transparent;border-radius:8px;padding:5px 10px;font-size:13px;color:var(--docent-fg)}
.icon{border:0;background:transparent;border-radius:8px;width:32px;height:32px;font-size:20px;line-height:1;color:var(--docent-fg)}
.ghost:hover,.icon:hover{background:var(--docent-surface)}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:14px}
.empty{margin:auto 0;color:var(--docent-muted)}
.empty p{margin:0 0 10px}
.starters{display:flex;flex-direction:column;gap:8px;margin:0;padding:0;list-style:none}
.starters button{width:100%;text-align:left;border:1px solid var(--docent-border);background:var(--docent-surface);
border-radius:10px;padding:9px 12px;color:var(--docent-fg)}
.starters button:hover{border-color:var(--docent-accent)}
.msg{max-width:100%;overflow-wrap:anywhere}
.user{align-self:flex-end;max-width:85%;background:var(--docent-accent);color:var(--docent-accent-fg);border-radius:14px 14px 4px 14px;padding:8px 12px;white-space:pre-wrap}
.user .about{display:block;font-size:12px;opacity:.85;margin-bottom:4px}
.answer{color:var(--docent-fg)}
.answer .body>:first-child{margin-top:0}
.answer .body>:last-child{margin-bottom:0}
.answer p,.answer ul,.answer ol,.answer blockquote,.answer table,.answer .code{margin:0 0 10px}
.answer ul,.answer ol{padding-inline-start:22px}
.answer h1,.answer h2,.answer h3,.answer h4{font-size:15px;margin:12px 0 6px}
.answer a{color:var(--docent-accent)}
.answer code{font:13px/1.5 var(--docent-mono);background:var(--docent-code-bg);border-radius:5px;padding:1px 4px}
.answer .code{position:relative}
.answer pre{margin:0;background:var(--docent-code-bg);border:1px solid var(--docent-border);border-radius:8px;padding:10px 12px;overflow-x:auto}
.answer pre code{background:none;padding:0;white-space:pre}
.answer pre,.answer code{direction:ltr;unicode-bidi:isolate}
.answer .code pre{padding-top:32px}
.answer .copy{position:absolute;top:6px;right:6px;font-size:12px;padding:2px 8px;border-radius:6px;border:1px solid var(--docent-border);background:var(--docent-bg);color:var(--docent-fg)}
.answer table{border-collapse:collapse;display:block;overflow-x:auto;font-size:14px}
.answer th,.answer td{border:1px solid var(--docent-border);padding:4px 8px;overflow-wrap:normal}
.answer blockquote{border-left:3px solid var(--docent-border);padding-left:10px;color:var(--docent-muted)}
.answer a.cite{display:inline-block;min-width:18px;padding:0 4px;margin:0 1px;font-size:11px;line-height:17px;text-align:center;
text-decoration:none;border-radius:9px;background:var(--docent-surface);border:1px solid var(--docent-border);vertical-align:1px}
.typing{color:var(--docent-muted);font-size:14px}
.sources{margin:10px 0 0;padding:8px 10px;border-radius:10px;background:var(--docent-surface);font-size:13px}
.sources h3{margin:0 0 4px;font:600 12px var(--docent-font);text-transform:uppercase;letter-spacing:.04em;color:var(--docent-muted)}
.sources ol{margin:0;padding-inline-start:20px}
.sources li+li{margin-top:6px}
.sources a{color:var(--docent-accent)}
.actions{display:flex;align-items:center;gap:6px;margin-top:8px;font-size:13px;color:var(--docent-muted)}
.actions button{border:1px solid var(--docent-border);background:transparent;border-radius:8px;padding:3px 8px;color:var(--docent-fg)}
.actions button[aria-pressed=true]{background:var(--docent-accent);color:var(--docent-accent-fg);border-color:var(--docent-accent)}
@media (forced-colors:active){.actions button[aria-pressed=true]{forced-color-adjust:none;background:Highlight;color:HighlightText;border-color:Highlight}}
.comment{display:flex;gap:6px;margin-top:6px}
.comment input{flex:1;min-width:0;border:1px solid color-mix(in srgb,var(--docent-fg) 55%,var(--docent-bg));border-radius:8px;padding:5px 8px;background:var(--docent-bg);color:var(--docent-fg)}
.failure{border:1px solid var(--docent-danger);color:var(--docent-fg);border-radius:10px;padding:8px 10px;font-size:14px}
.failure strong{color:var(--docent-danger)}
.failure button{margin-left:6px}
.note{margin:0;padding:0 14px 8px;font-size:12px;color:var(--docent-muted)}
form{display:flex;flex-direction:column;gap:6px;padding:10px 14px;border-top:1px solid var(--docent-border)}
.chip{display:flex;align-items:center;gap:6px;font-size:12px;color:var(--docent-muted);background:var(--docent-surface);border-radius:8px;padding:4px 8px}
.chip span{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.row{display:flex;gap:8px;align-items:flex-end}
textarea::placeholder,input::placeholder{color:var(--docent-muted);opacity:1}
textarea{flex:1;resize:none;min-height:40px;max-height:140px;border:1px solid color-mix(in srgb,var(--docent-fg) 55%,var(--docent-bg));border-radius:10px;padding:9px 11px;background:var(--docent-bg);color:var(--docent-fg);line-height:1.4}
.send{border:1px solid transparent;border-radius:10px;padding:8px 13px;background:var(--docent-accent);color:var(--docent-accent-fg);font-weight:600}
.send.stop{background:var(--docent-surface);color:var(--docent-fg);border:1px solid var(--docent-border)}
`;
