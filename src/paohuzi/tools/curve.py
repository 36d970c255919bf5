"""A trainer's learning curve drawn as an image (matplotlib, from the ``train`` extra): the
points a hand of each measure by hands trained. Both trainers' checkpoints keep their curve as
a list of points, each a dict with ``hands`` and one number a measure (:data:`MEASURES`), and
perhaps half its 95% confidence interval (``<measure>_ci95``), drawn as error bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

MEASURES = (
    ("vs_greedy", "o", "vs greedy, greedy"),
    ("alone", "^", "the network alone vs greedy, greedy"),
    ("vs_expert", "s", "vs expert, expert"),
)
"""The curve's measures a point may hold: key, marker, legend."""


def plot(
    curve: Sequence[dict[str, float]],
    path: Path,
    labels: Mapping[str, str] | None = None,
) -> None:
    """Draw ``curve`` to ``path`` (PNG or SVG by the suffix), one line a measure its points
    hold, named by ``labels`` (by default :data:`MEASURES`')."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2), dpi=120)
    drawn = [
        (key, marker, label) for key, marker, label in MEASURES if any(key in p for p in curve)
    ]
    span = max((p["hands"] for p in curve), default=0)
    for i, (key, marker, label) in enumerate(drawn):
        points = [p for p in curve if key in p]
        name = (labels or {}).get(key, label)
        # each measure a little aside from the others, so that their error bars do not hide
        # one another
        aside = (i - (len(drawn) - 1) / 2) * 0.012 * span
        hands, values = [p["hands"] + aside for p in points], [p[key] for p in points]
        if all(f"{key}_ci95" in p for p in points):
            errors = [p[f"{key}_ci95"] for p in points]
            ax.errorbar(hands, values, yerr=errors, marker=marker, capsize=3, label=name)
        else:
            ax.plot(hands, values, marker=marker, label=name)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("hands of training")
    ax.set_ylabel("points a hand")
    if ax.get_legend_handles_labels()[0]:  # nothing drawn, no legend (nor its warning)
        # below the axes, where it hides no point
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    fig.tight_layout()
    # an SVG without the date it was drawn, its ids salted alike: the same curve, the same file
    with plt.rc_context({"svg.hashsalt": "paohuzi"}):
        fig.savefig(path, metadata={"Date": None} if path.suffix.lower() == ".svg" else None)
    plt.close(fig)
