"""The score-progression chart, drawn on the server as SVG (no script, no library).

One step line per player over the scorings of the game. Players differ by
colour, by dash pattern and by marker shape, and each line is named at its
end and in the legend, so colour is never the only signal.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 44, 150, 24, 40
# Okabe-Ito colours: told apart with the common colour-vision deficiencies.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]
DASHES = ["", "8 4", "2 3", "10 3 2 3", "4 4", "1 2"]
MARKERS = ["circle", "square", "triangle", "diamond", "circle", "square"]


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'
    if kind == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if kind == "triangle":
        return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y + 4:.1f}L{x - 5:.1f} {y + 4:.1f}Z" fill="{colour}"/>'
    return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y:.1f}L{x:.1f} {y + 5:.1f}L{x - 5:.1f} {y:.1f}Z" fill="{colour}"/>'


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def score_chart(players: list[str], steps: list[tuple[int, list[float]]], target: float | None = None,
                title: str = "Score progression") -> str:
    """An SVG document: `steps` are (time, scores) at the start and after each change of score."""
    label = escape(title)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
            f'height="{HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" font-family="sans-serif" font-size="12">')
    if not steps:
        desc = "No scores yet."
        return (head + f'<title id="chart-title">{label}</title><desc id="chart-desc">{desc}</desc>'
                f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>'
                f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" fill="#333">{desc}</text></svg>')
    top_score = max([max(s) for _, s in steps] + [target or 0, 1])
    n = len(steps)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(score: float) -> float:
        return TOP + plot_h - plot_h * score / top_score

    final = steps[-1][1]
    desc = "; ".join(f"{name}: {_number(final[i])}" for i, name in enumerate(players))
    parts = [head, f'<title id="chart-title">{label}</title>',
             f'<desc id="chart-desc">{escape("Scores after each scoring. Final: " + desc)}</desc>',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>']
    # Grid and axes.
    tick = max(1, round(top_score / 6))
    value = 0
    while value <= top_score:
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" fill="#333">{value}</text>')
        value += tick
    for i in range(n):
        parts.append(f'<text x="{x(i):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" fill="#333">{i}</text>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" fill="#333">after each scoring</text>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="#333"/>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{TOP + plot_h}" y2="{TOP + plot_h}" stroke="#333"/>')
    if target:
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(target):.1f}" y2="{y(target):.1f}" '
                     f'stroke="#555" stroke-dasharray="2 6"/>')
        parts.append(f'<text x="{LEFT + plot_w + 4}" y="{y(target) + 4:.1f}" fill="#333">target {_number(target)}</text>')
    # One step line per player.
    label_y: list[float] = []
    for p, name in enumerate(players):
        colour, dash, marker = COLOURS[p % 6], DASHES[p % 6], MARKERS[p % 6]
        points = []
        for i, (_, scores) in enumerate(steps):
            if i:
                points.append(f"{x(i):.1f},{y(steps[i - 1][1][p]):.1f}")
            points.append(f"{x(i):.1f},{y(scores[p]):.1f}")
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<g><title>{escape(name)}</title><polyline points="{" ".join(points)}" fill="none" '
                     f'stroke="{colour}" stroke-width="2.5"{dash_attr}/>')
        parts.extend(_marker(marker, x(i), y(scores[p]), colour) for i, (_, scores) in enumerate(steps))
        parts.append("</g>")
        # Name at the line's end, nudged so equal scores do not print on top of each other.
        ly = y(final[p]) + 4
        while any(abs(ly - other) < 14 for other in label_y):
            ly += 14
        label_y.append(ly)
        parts.append(_marker(marker, LEFT + plot_w + 10, ly - 4, colour))
        parts.append(f'<text x="{LEFT + plot_w + 18}" y="{ly:.1f}" fill="#111" data-player={quoteattr(str(p))}>'
                     f'{escape(name)} {_number(final[p])}</text>')
    parts.append("</svg>")
    return "".join(parts)
