/** The HTML reports' page: one self-contained document and the style sheet the report and the backtest share. */

/** The HTML reports' style sheet, shared by the report and the backtest. */
export const STYLE = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa;margin:0;padding:24px}
main{max-width:980px;margin:0 auto}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0 0 10px}
.muted{color:#656d76;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:18px 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:12px 14px}
.big{font-size:26px;font-weight:650}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:0 0 14px;overflow-x:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(460px,100%),1fr));gap:14px;margin:0 0 14px}
.grid section{margin:0}
svg{display:block;max-width:100%;height:auto}
.label{font-size:12px;fill:#1f2328}.value{font-size:12px;fill:#656d76}.axis{stroke:#8c959f}
.legend{list-style:none;padding:0;margin:10px 0 0;display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.empty{color:#656d76;margin:0}
footer{margin-top:18px}
svg.narrow{display:none}
@media (max-width:600px){body{padding:12px}section{padding:12px 12px}svg.wide{display:none}svg.narrow{display:block}}
`;

/**
 * One self-contained page: nothing loaded from anywhere (the CSP allows only its inline style),
 * readable on a phone. `title` and `body` are HTML already escaped.
 */
export const page = (title: string, style: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
