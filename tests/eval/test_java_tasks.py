"""Unit tests of the Java task generator (java_tasks.py) on a source root
written to a temporary directory: imports (single, on demand, static),
same-package types, constructors and overloads by argument count,
supertypes and typed receivers."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import java_tasks  # noqa: E402
from taskcase import ProjectCase  # noqa: E402

STRINGS = "com/acme/util/Strings.java"
SHAPE = "com/acme/model/Shape.java"
SQUARE = "com/acme/model/Square.java"
MAIN = "com/acme/app/Main.java"


class JavaTasksTest(ProjectCase):
    FILES = {
        STRINGS: """\
            package com.acme.util;

            public final class Strings {
                public static final int MAX = 10;

                public static String trim(String s) {
                    return s.trim();
                }

                public static String trim(String s, int n) {
                    return s.substring(0, n);
                }
            }
            """,
        SHAPE: """\
            package com.acme.model;

            /** A shape. */
            public abstract class Shape {
                protected int sides;

                public int sides() {
                    return sides;
                }
            }
            """,
        SQUARE: """\
            package com.acme.model;

            import com.acme.util.Strings;

            public class Square extends Shape {
                private final int size;

                public Square(int size) {
                    this.size = size;
                }

                public Square(int size, String name) {
                    this(size);
                }

                public String describe(String name) {
                    String t = Strings.trim(name, Strings.MAX);
                    Square other = new Square(size);
                    return t + other.area() + sides();
                }

                int area() {
                    return size * size;
                }
            }
            """,
        MAIN: """\
            package com.acme.app;

            import com.acme.model.*;
            import static com.acme.util.Strings.trim;

            public class Main {
                public static void main(String[] args) {
                    Shape s = new Square(2, "a");
                    System.out.println(trim(args[0]));
                    System.out.println(s.sides());
                }
            }
            """,
    }

    def test_static_members_constructors_and_supertypes(self):
        tasks, _ = java_tasks.build_tasks(self.root, "demo")
        L = self.line
        describe = self.task(tasks, "Square.describe")
        self.assertEqual(self.gold(describe), [
            # two arguments: the second overload
            ("Strings.trim", STRINGS, L(STRINGS, "trim(String s, int n)"),
             L(STRINGS, "trim(String s, int n)") + 2, True, "static"),
            ("Strings.MAX", STRINGS, L(STRINGS, "MAX"), L(STRINGS, "MAX"),
             True, "static"),
            # the constructor of one parameter (the own field `size` and
            # the own class are not gold)
            ("Square", SQUARE, L(SQUARE, "public Square(int size)"),
             L(SQUARE, "public Square(int size)") + 2, False, "new"),
            ("other.area", SQUARE, L(SQUARE, "int area()"),
             L(SQUARE, "int area()") + 2, False, "receiver"),
            # inherited from the superclass, in another file
            ("sides", SHAPE, L(SHAPE, "public int sides()"),
             L(SHAPE, "public int sides()") + 2, True, "class")])
        self.assert_blanked(describe)

    def test_on_demand_and_static_imports(self):
        tasks, _ = java_tasks.build_tasks(self.root, "demo")
        L = self.line
        main = self.task(tasks, "Main.main")
        self.assertEqual(self.gold(main), [
            ("Shape", SHAPE, L(SHAPE, "public abstract class"),
             L(SHAPE, "public abstract class") + 6, True, "import"),
            ("Square", SQUARE, L(SQUARE, "String name)"),
             L(SQUARE, "String name)") + 2, True, "new"),
            ("trim", STRINGS, L(STRINGS, "trim(String s)"),
             L(STRINGS, "trim(String s)") + 2, True, "class"),
            ("s.sides", SHAPE, L(SHAPE, "public int sides()"),
             L(SHAPE, "public int sides()") + 2, True, "receiver")])

    def test_only_bodies_using_other_files(self):
        tasks, _ = java_tasks.build_tasks(self.root, "demo")
        # Square's constructors and area() use nothing of another file.
        self.assertEqual(sorted(t["function_name"] for t in tasks),
                         ["Main.main", "Square.describe"])


if __name__ == "__main__":
    unittest.main()
