"""index.html: the clause matrix of clauses.json, readable; failures listed last, by clause ID."""

from __future__ import annotations

from html import escape

COLOURS = {"passed": "#2e7d32", "failed": "#c62828", "error": "#ef6c00", "deviation": "#6a1b9a",
           "disabled": "#757575", "uncovered": "#9e9e9e"}


def _badge(status: str) -> str:
    return f'<span class="b" style="background:{COLOURS.get(status, "#000")}">{escape(status)}</span>'


def render(doc: dict) -> str:
    counts = doc["summary"]["clauses"]
    rows = doc["clauses"]
    ordered = sorted(rows, key=lambda r: (r["status"] in ("failed", "error"), r["area"], r["id"]))
    body = []
    for r in ordered:
        scen = "".join(
            f"<li>{_badge(s['status'])} {escape(s['feature'])}: {escape(s['name'])}"
            + (f"<pre>{escape(s['message'])}</pre>" if s.get("message") else "")
            + ("".join(f' <a href="{escape(p)}">console {escape(b)}</a>' for b, p in s.get("logs", {}).items()))
            + "</li>"
            for s in r["scenarios"])
        body.append(f"<tr><td>{_badge(r['status'])}</td><td><code>{escape(r['id'])}</code></td>"
                    f"<td>{escape(r['area'])}</td><td>{escape(r['title'])}"
                    f"{' <em>(interpretation)</em>' if r.get('interpretation') else ''}<ul>{scen}</ul></td></tr>")
    target = ", ".join(f"{escape(str(k))}: {escape(str(v))}" for k, v in (doc.get("target") or {}).items())
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>kube32 conformance</title>
<style>body{{font-family:sans-serif;margin:2em}}td{{vertical-align:top;padding:4px 8px;border-bottom:1px solid #ddd}}
.b{{color:#fff;padding:1px 6px;border-radius:3px;font-size:90%}}pre{{white-space:pre-wrap;background:#f6f6f6;padding:4px}}
ul{{margin:2px 0;padding-left:1.2em}}</style></head><body>
<h1>kube32 conformance</h1>
<p>Suite {escape(doc['suite']['version'])} &middot; target {target} &middot; started {escape(doc['started'])}</p>
<p><strong>{escape(summary)}</strong> (clauses)</p>
<table><tr><th>status</th><th>clause</th><th>area</th><th>statement and scenarios</th></tr>
{''.join(body)}
</table></body></html>
"""
