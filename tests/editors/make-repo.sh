#!/bin/sh
# make-repo.sh DIR: the small repository every editor test works in. A git
# repository (so clients find its root) with Python files where report.py
# calls circle_area() and Rectangle, defined in geometry.py. The call site
# is pkg/report.py line 8 (1-based), "    total += circle_area(r)".
# In geometry.py, Square.diagonal (line 31, "self.width") is written in a
# subclass: the context there holds Rectangle's methods as members, shown
# as one item. web/numbers.ts has a chunk of statements that opens with a
# doc comment.
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


class Square(Rectangle):
    """A rectangle with equal sides."""

    def __init__(self, side):
        super().__init__(side, side)

    def diagonal(self):
        return self.width * math.sqrt(2)
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

mkdir -p "$dir/web"
cat >"$dir/web/numbers.ts" <<'TS'
import { readFileSync } from 'fs';

/**
 * The numbers in a file, one a line.
 */
export function readNumbers(path: string): number[] {
  return readFileSync(path, 'utf8').split('\n').map(Number);
}

/**
 * A number as a fixed-width label.
 */
export const numberLabel = (n: number): string =>
  n.toFixed(2).padStart(WIDTH, ' ');

// The width of a label.
const WIDTH = 8;
TS

cat >"$dir/README.md" <<'MD'
# Shapes

`pkg.report.summary` adds up areas computed by `pkg.geometry`.
MD
