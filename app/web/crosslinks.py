"""Links between the main page's figures and the labs: ``figure_labs(n)``, the lab
sections that explore Figure ``n`` (``app.figures.registry.LAB_LINKS``) with their
addresses, entries ("C4") and titles, for the "Try it in lab …" line under each figure
(``templates/macros/figure.html``). The labs link back themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.figures.labs import LABS
from app.figures.registry import BY_NUMBER
from app.inputs.lab_controls import FIGURE_KEY


@dataclass(frozen=True)
class LabLink:
    href: str
    entry: str  # "C4"
    title: str  # the lab section's title
    lab: str  # the lab's title


def figure_labs(number: int) -> list[LabLink]:
    """The lab sections that explore Figure ``number``, best first (none for a number
    that is not a figure)."""
    entry = BY_NUMBER.get(number)
    labs = {lab.id: lab for lab in LABS}
    links: list[LabLink] = []
    for lab_id, name in entry.labs if entry else ():
        lab = labs[lab_id]  # a KeyError or StopIteration is a bad LAB_LINKS entry
        fig = next(f for f in lab.figures if f.name == name)
        # the figure in the query too: the address a reader lands on names it for the server
        href = f"/labs/{lab.id}?{FIGURE_KEY}={fig.name}#{fig.name}"
        links.append(LabLink(href, fig.entry, fig.title, lab.title))
    return links
