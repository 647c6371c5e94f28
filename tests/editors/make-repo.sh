#!/bin/sh
# make-repo.sh DIR: the small repository every editor test works in. A git
# repository (so clients find its root) with Python files where report.py
# calls circle_area() and Rectangle, defined in geometry.py. The call site
# is pkg/report.py line 8 (1-based), "    total += circle_area(r)".
set -eu
dir=$1
mkdir -p "$dir/pkg"
git init -q "$dir"

cat >"$dir/pkg/__init__.py" <<'PY'
"""Shapes and reports about them."""
PY

cat >"$dir/pkg/geometry.py" <<'PY'
"""Shapes and their areas."""
import math


def circle_area(radius):
    """Area of a circle of the given radius."""
    return math.pi * radius * radius


class Rectangle:
    """An axis-aligned rectangle."""

    def __init__(self, width, height):
        self.width = width
        self.height = height

    def area(self):
        return self.width * self.height

    def perimeter(self):
        return 2 * (self.width + self.height)
PY

cat >"$dir/pkg/report.py" <<'PY'
from pkg.geometry import circle_area, Rectangle


def summary(radii, boxes):
    """Total area of circles of the given radii and of the boxes."""
    total = 0.0
    for r in radii:
        total += circle_area(r)
    for w, h in boxes:
        total += Rectangle(w, h).area()
    return total
PY

cat >"$dir/README.md" <<'MD'
# Shapes

`pkg.report.summary` adds up areas computed by `pkg.geometry`.
MD
