/**
 * The launcher's CSS and the theme's custom properties: what `widget.js` needs to paint the button.
 * Every inherited property is set on the widget's own elements, so a host page's fonts and colours reach
 * nothing; the custom properties on `:host` are the theming surface (a host page overrides them on the
 * `docent-assistant` element). Its position and stacking are `!important`: a host page's rule on the
 * element (`* { all: unset }`, a reset) beats the shadow root's ordinary `:host` rules, and its important
 * ones lose to these. Filled buttons have a transparent border, not none: in forced colours (Windows high
 * contrast) their background is dropped and the border, drawn in the system's colour, is their edge.
 */
export const LAUNCHER_STYLES = `
:host{all:initial;position:fixed!important;z-index:2147483000!important;
--docent-accent:#2557d6;--docent-accent-fg:#fff;--docent-bg:#fff;--docent-fg:#111827;--docent-muted:#4b5563;
--docent-border:#d8dce3;--docent-surface:#f4f6f9;--docent-code-bg:#f3f4f6;--docent-danger:#b42318;
--docent-font:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--docent-mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
--docent-radius:14px;--docent-shadow:0 12px 40px rgba(15,23,42,.22)}
:host([data-theme=dark]){--docent-accent:#7aa2ff;--docent-accent-fg:#0b1020;--docent-bg:#151a23;--docent-fg:#e8ebf1;
--docent-muted:#a9b1c0;--docent-border:#323a48;--docent-surface:#1d2430;--docent-code-bg:#0e131b;--docent-danger:#ff8a80}
@media (prefers-color-scheme:dark){:host(:not([data-theme=light])){--docent-accent:#7aa2ff;--docent-accent-fg:#0b1020;
--docent-bg:#151a23;--docent-fg:#e8ebf1;--docent-muted:#a9b1c0;--docent-border:#323a48;--docent-surface:#1d2430;
--docent-code-bg:#0e131b;--docent-danger:#ff8a80}}
*,*::before,*::after{box-sizing:border-box}
.launcher,.panel,.ask-selection{letter-spacing:normal;word-spacing:normal;text-transform:none;text-indent:0;text-shadow:none;
font-style:normal;font-variant:normal;white-space:normal;visibility:visible;direction:ltr;cursor:auto;text-decoration:none}
[hidden]{display:none!important}
button,textarea,input{font:inherit;color:inherit;letter-spacing:normal;text-transform:none}
button{cursor:pointer}
:focus-visible{outline:2px solid var(--docent-accent);outline-offset:2px}
.vh{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.launcher{position:fixed;right:20px;bottom:20px;display:flex;align-items:center;gap:8px;padding:10px 15px;border:1px solid transparent;
border-radius:999px;background:var(--docent-accent);color:var(--docent-accent-fg);font:600 15px/1.2 var(--docent-font);
box-shadow:var(--docent-shadow)}
:host([data-position=bottom-left]) .launcher{right:auto;left:20px}
.launcher svg{width:18px;height:18px}
.launcher kbd{font:500 12px var(--docent-font);opacity:.8;border:1px solid currentColor;border-radius:5px;padding:1px 5px}
@media (hover:none) and (pointer:coarse){.launcher kbd{display:none}}
.ask-selection{position:fixed;border:1px solid transparent;border-radius:8px;padding:4px 9px;background:var(--docent-accent);color:var(--docent-accent-fg);
font:600 13px/1.2 var(--docent-font);box-shadow:var(--docent-shadow)}
`;
