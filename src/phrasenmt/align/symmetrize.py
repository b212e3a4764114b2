"""Symmetrization of two directional alignments (Koehn 2010, SMT book, ch. 4.5).

`fwd` comes from the source->target model (each target word has at most one
link), `rev` from the target->source model; both are indexed source-target.
grow-diag-final-and follows the textbook pseudo-code, where `e` is the target
(English) and `f` the source (foreign) word:

    alignment = intersect(fwd, rev)
    GROW-DIAG: repeat until nothing is added: for e = 0..E, for f = 0..F, if
        (e, f) is aligned, for each neighbour in order (-1,0) (0,-1) (1,0) (0,1)
        (-1,-1) (-1,1) (1,-1) (1,1) (as (de, df)): add it if it is in the
        union and its e or its f is still unaligned
    FINAL-AND(fwd); FINAL-AND(rev): for e = 0..E, for f = 0..F, add (e, f) if it
        is in that directional alignment and both e and f are still unaligned

`grow_diag` visits points in the textbook's (e, f) order with a heap instead
of rescanning the whole matrix; since "e or f unaligned" can only turn false,
a point visited once can never add anything later, so the result is identical
(the unit tests compare it with a literal transcription of the pseudo-code).
"""

from __future__ import annotations

import heapq

Link = tuple[int, int]

# (d_target, d_source), the textbook's neighbour order for (e, f)
NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
METHODS = ("grow-diag-final-and", "grow-diag-final", "grow-diag", "intersection",
           "union")


def _key(link: Link) -> tuple[int, int]:
    """Textbook visiting order: target index (e) outer, source index (f) inner."""
    return link[1], link[0]


def grow_diag(fwd: set[Link], rev: set[Link]) -> set[Link]:
    """Intersection grown with diagonal neighbours from the union."""
    union = fwd | rev
    alignment = fwd & rev
    src_done = {i for i, _ in alignment}
    tgt_done = {j for _, j in alignment}
    pending = alignment
    while pending:
        heap = [_key(p) for p in pending]
        heapq.heapify(heap)
        pending = set()
        while heap:
            j, i = heapq.heappop(heap)
            for dj, di in NEIGHBOURS:
                new = (i + di, j + dj)
                if new not in union or new in alignment:
                    continue
                if new[0] in src_done and new[1] in tgt_done:
                    continue
                alignment.add(new)
                src_done.add(new[0])
                tgt_done.add(new[1])
                if _key(new) > (j, i):
                    heapq.heappush(heap, _key(new))
                else:
                    pending.add(new)
    return alignment


def final(alignment: set[Link], directional: set[Link], both: bool) -> set[Link]:
    """Add directional links whose words are unaligned (both: final-and)."""
    src_done = {i for i, _ in alignment}
    tgt_done = {j for _, j in alignment}
    for i, j in sorted(directional, key=_key):
        free_i, free_j = i not in src_done, j not in tgt_done
        if (free_i and free_j) if both else (free_i or free_j):
            alignment.add((i, j))
            src_done.add(i)
            tgt_done.add(j)
    return alignment


def symmetrize(fwd: set[Link], rev: set[Link], method: str) -> set[Link]:
    """Combine forward and reverse links with one of METHODS."""
    if method == "intersection":
        return fwd & rev
    if method == "union":
        return fwd | rev
    if method not in METHODS:
        raise ValueError(f"unknown symmetrization method {method!r}")
    alignment = grow_diag(fwd, rev)
    if method == "grow-diag":
        return alignment
    both = method == "grow-diag-final-and"
    return final(final(alignment, fwd, both), rev, both)
