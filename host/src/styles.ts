// One stylesheet for everything the SDK draws, themable through --platform-*
// custom properties set on any ancestor. Adopted as a constructable stylesheet
// (no <style> element and no style attribute, so a strict CSP need not allow
// inline styles).
export const CSS = `
.pf-root{--pf-fg:var(--platform-color-text,#1d1d1f);--pf-muted:var(--platform-color-muted,#5f6368);--pf-bg:var(--platform-color-background,#fff);--pf-surface:var(--platform-color-surface,#f7f7f9);--pf-border:var(--platform-color-border,#d0d4da);--pf-accent:var(--platform-color-accent,#1a56db);--pf-on-accent:var(--platform-color-on-accent,#fff);--pf-danger:var(--platform-color-danger,#b42318);--pf-warning:var(--platform-color-warning,#8a5a00);--pf-success:var(--platform-color-success,#146c2e);--pf-info:var(--platform-color-info,#1a4f91);--pf-radius:var(--platform-radius,6px);--pf-gap:var(--platform-gap,12px);font:var(--platform-font,14px/1.45 system-ui,sans-serif);color:var(--pf-fg);background:var(--pf-bg)}
.pf-root *,.pf-root *::before,.pf-root *::after{box-sizing:border-box}
.pf-root[aria-busy=true]{cursor:progress}
.pf-surface{display:flex;flex-direction:column;gap:var(--pf-gap);margin-bottom:var(--pf-gap)}
.pf-card{border:1px solid var(--pf-border);border-radius:var(--pf-radius);padding:var(--pf-gap);overflow:auto}
.pf-row{display:flex;flex-wrap:wrap;gap:var(--pf-gap);align-items:flex-start}
.pf-row>*{flex:1 1 220px;min-width:0}
.pf-gap-none{gap:0}.pf-gap-small{gap:4px}.pf-gap-large{gap:24px}
.pf-section{border:1px solid var(--pf-border);border-radius:var(--pf-radius);padding:var(--pf-gap);display:flex;flex-direction:column;gap:var(--pf-gap)}
.pf-section>summary,.pf-section>h2{font-weight:600;font-size:1.05em;margin:0;cursor:default}
.pf-section>summary{cursor:pointer}
.pf-header{border-bottom:1px solid var(--pf-border);padding-bottom:8px}.pf-header h2{margin:0;font-size:1.3em}.pf-header p{margin:2px 0 0;color:var(--pf-muted)}
.pf-footer{border-top:1px solid var(--pf-border);padding-top:8px;color:var(--pf-muted)}
.pf-tablist{display:flex;gap:4px;border-bottom:1px solid var(--pf-border)}
.pf-tab{border:1px solid transparent;border-bottom:none;background:none;padding:6px 12px;border-radius:var(--pf-radius) var(--pf-radius) 0 0;color:var(--pf-fg);font:inherit;cursor:pointer}
.pf-tab[aria-selected=true]{border-color:var(--pf-border);background:var(--pf-bg);font-weight:600}
.pf-tabpanel{padding-top:var(--pf-gap)}
.pf-btn{font:inherit;padding:6px 14px;border-radius:var(--pf-radius);border:1px solid var(--pf-border);background:var(--pf-bg);color:var(--pf-fg);cursor:pointer}
.pf-btn-primary{background:var(--pf-accent);border-color:var(--pf-accent);color:var(--pf-on-accent)}
.pf-btn-danger{background:var(--pf-danger);border-color:var(--pf-danger);color:#fff}
.pf-btn:disabled{opacity:.55;cursor:not-allowed}
.pf-btn:focus-visible,.pf-linkbtn:focus-visible,.pf-tab:focus-visible,.pf-root input:focus-visible,.pf-root select:focus-visible,.pf-root textarea:focus-visible{outline:2px solid var(--pf-accent);outline-offset:2px}
.pf-linkbtn{font:inherit;background:none;border:none;padding:0;color:var(--pf-accent);text-decoration:underline;cursor:pointer}
.pf-root a{color:var(--pf-accent)}
.pf-muted{color:var(--pf-muted)}.pf-strong{font-weight:600}
.pf-badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:.85em;border:1px solid currentColor}
.pf-tone-info{color:var(--pf-info)}.pf-tone-success{color:var(--pf-success)}.pf-tone-warning{color:var(--pf-warning)}.pf-tone-danger{color:var(--pf-danger)}.pf-tone-neutral{color:var(--pf-muted)}
.pf-alert{border-left:4px solid currentColor;background:var(--pf-surface);padding:8px 12px;border-radius:var(--pf-radius)}
.pf-alert>strong{display:block}
.pf-alert-info{color:var(--pf-info)}.pf-alert-success{color:var(--pf-success)}.pf-alert-warning{color:var(--pf-warning)}.pf-alert-error{color:var(--pf-danger)}
.pf-stat{display:flex;flex-direction:column}.pf-stat-value{font-size:1.6em;font-weight:600}.pf-stat-label{color:var(--pf-muted)}
.pf-field{display:flex;flex-direction:column;gap:4px}
.pf-field>label{font-weight:500}
.pf-required{color:var(--pf-danger)}
.pf-check{display:flex;gap:6px;align-items:center}
.pf-root input:not([type=checkbox]),.pf-root select,.pf-root textarea{font:inherit;padding:6px 8px;border:1px solid var(--pf-border);border-radius:var(--pf-radius);background:var(--pf-bg);color:var(--pf-fg);max-width:100%}
.pf-form{display:flex;flex-direction:column;gap:var(--pf-gap)}
.pf-actions{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.pf-upload-status{font-size:.9em;color:var(--pf-muted)}
.pf-upload-status[data-ok=false]{color:var(--pf-danger)}
.pf-grid{display:flex;flex-direction:column;gap:8px;overflow:auto}
.pf-grid table{border-collapse:collapse;width:100%}
.pf-grid caption{text-align:left;font-weight:600;padding-bottom:6px}
.pf-grid th,.pf-grid td{border-bottom:1px solid var(--pf-border);padding:6px 8px;text-align:left;vertical-align:top}
.pf-grid th button{font:inherit;font-weight:600;background:none;border:none;padding:0;color:inherit;cursor:pointer}
.pf-num{text-align:right}
.pf-grid td.pf-num{font-variant-numeric:tabular-nums}
.pf-pager{display:flex;gap:8px;align-items:center}
.pf-list{list-style:none;margin:0;padding:0}.pf-list li{padding:6px 0;border-bottom:1px solid var(--pf-border)}
.pf-chart svg{display:block;max-width:100%;height:auto}
.pf-chart .pf-bar,.pf-chart .pf-slice-0{fill:var(--platform-chart-1,#1a56db)}.pf-chart .pf-slice-1{fill:var(--platform-chart-2,#e8793a)}.pf-chart .pf-slice-2{fill:var(--platform-chart-3,#2e9e5b)}.pf-chart .pf-slice-3{fill:var(--platform-chart-4,#9b51e0)}.pf-chart .pf-slice-4{fill:var(--platform-chart-5,#c8a400)}
.pf-chart .pf-line{fill:none;stroke:var(--platform-chart-1,#1a56db);stroke-width:2}
.pf-chart table{font-size:.9em;margin-top:6px;border-collapse:collapse}.pf-chart td,.pf-chart th{padding:2px 8px;border-bottom:1px solid var(--pf-border)}
.pf-image{max-width:100%}
.pf-frame{width:100%;min-height:240px;border:1px solid var(--pf-border);border-radius:var(--pf-radius)}
.pf-unknown{border:1px dashed var(--pf-warning);border-radius:var(--pf-radius);padding:8px;color:var(--pf-warning)}
.pf-notifications{display:flex;flex-direction:column;gap:6px;margin-bottom:var(--pf-gap)}
.pf-notice{display:flex;gap:8px;align-items:flex-start;justify-content:space-between;padding:8px 12px;border-radius:var(--pf-radius);border-left:4px solid currentColor;background:var(--pf-surface)}
.pf-notice-INFO{color:var(--pf-info)}.pf-notice-WARNING{color:var(--pf-warning)}.pf-notice-ERROR{color:var(--pf-danger)}
.pf-notice button{font:inherit;background:none;border:none;color:inherit;cursor:pointer}
.pf-modal{border:none;border-radius:var(--pf-radius);padding:0;width:min(560px,calc(100vw - 32px));max-height:calc(100vh - 32px);color:var(--pf-fg);background:var(--pf-bg);box-shadow:0 10px 40px rgba(0,0,0,.3)}
.pf-modal-wide{width:min(960px,calc(100vw - 32px))}
.pf-modal::backdrop{background:var(--platform-backdrop,rgba(0,0,0,.4))}
.pf-modal-head{display:flex;justify-content:space-between;align-items:center;padding:10px var(--pf-gap);border-bottom:1px solid var(--pf-border)}
.pf-modal-head h2{margin:0;font-size:1.1em}
.pf-modal-body{padding:var(--pf-gap);display:flex;flex-direction:column;gap:var(--pf-gap)}
.pf-error{color:var(--pf-danger)}
.pf-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

let adopted = false;
/** Adds the stylesheet to the document once. */
export function adoptStyles(doc: Document) {
  if (adopted) return;
  adopted = true;
  if ("adoptedStyleSheets" in doc && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  } else {
    const style = doc.createElement("style");
    style.textContent = CSS;
    doc.head.appendChild(style);
  }
}
