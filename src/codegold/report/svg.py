"""Inline SVG bar charts (no scripts, no external fonts); every label is escaped."""

from __future__ import annotations

from collections.abc import Sequence

from codegold.plumbing.text import html_text as escape

_BAR = "#3b6ea8"


def horizontal_bars(rows: Sequence[tuple[str, float, str]], *, title: str, width: int = 640) -> str:
    """One bar per row: (label, value in [0, 1], text shown after the bar)."""
    row_h, label_w, pad = 22, 260, 6
    bar_w = width - label_w - 90
    height = row_h * len(rows) + 30
    parts = [f'<svg class="chart" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(title)}</title>"]
    for i, (label, value, note) in enumerate(rows):
        y = 10 + i * row_h
        w = max(0.0, min(1.0, value)) * bar_w
        shown = label if len(label) <= 38 else label[:37] + "…"
        parts.append(f'<text x="{label_w - pad}" y="{y + 15}" text-anchor="end">{escape(shown)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="{row_h - 6}" fill="#e8edf3"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" fill="{_BAR}">'
                     f"<title>{escape(label)}: {escape(note)}</title></rect>")
        parts.append(f'<text x="{label_w + bar_w + pad}" y="{y + 15}">{escape(note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def vertical_bars(rows: Sequence[tuple[str, int]], *, title: str, width: int = 640) -> str:
    """One column per row: (label, count), scaled to the largest count."""
    height, base, top = 220, 180, 20
    peak = max((n for _, n in rows), default=0) or 1
    slot = (width - 40) / max(len(rows), 1)
    parts = [f'<svg class="chart" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(title)}</title>",
             f'<line x1="20" y1="{base}" x2="{width - 20}" y2="{base}" stroke="#888"/>']
    for i, (label, count) in enumerate(rows):
        x = 20 + i * slot
        h = (base - top) * count / peak
        parts.append(f'<rect x="{x + slot * 0.15:.1f}" y="{base - h:.1f}" width="{slot * 0.7:.1f}" '
                     f'height="{h:.1f}" fill="{_BAR}"><title>{escape(label)}: {count}</title></rect>')
        parts.append(f'<text x="{x + slot / 2:.1f}" y="{base - h - 4:.1f}" text-anchor="middle">{count}</text>')
        parts.append(f'<text x="{x + slot / 2:.1f}" y="{base + 16}" text-anchor="middle">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
