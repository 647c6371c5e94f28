"""Unit tests of the C and C++ task generator (c_tasks.py) on projects
written to a temporary directory: include closures and include
directories, a declaration paired with its definition, macros, tags,
typedefs, the first branch of a conditional, C++ namespaces and members
defined out of class."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import c_tasks  # noqa: E402
from taskcase import ProjectCase  # noqa: E402

UTIL = "include/util.h"


class CTasksTest(ProjectCase):
    FILES = {
        UTIL: """\
            #ifndef UTIL_H
            #define UTIL_H

            #define MAX_ITEMS 16

            struct item {
            	int id;
            };

            typedef struct item item_t;

            int item_count(const struct item *items);

            #ifdef CONFIG_FAST
            static inline int fast(void) { return 1; }
            #else
            static inline int fast(void) { return 0; }
            #endif

            #endif
            """,
        "src/count.c": """\
            #include "util.h"

            int item_count(const struct item *items)
            {
            	int n = 0;
            	while (items[n].id)
            		n++;
            	return n;
            }
            """,
        "src/main.c": """\
            #include "util.h"
            #include <stdio.h>

            static int twice(int x)
            {
            	return 2 * x;
            }

            int main(void)
            {
            	struct item items[MAX_ITEMS];
            	item_t *first = &items[0];
            	int n = item_count(items);
            	printf("%d\\n", twice(n) + fast());
            	return first->id;
            }
            """,
    }

    def test_includes_definitions_and_macros(self):
        tasks, _ = c_tasks.build_tasks(self.root, "demo", lang="c")
        # item_count's body uses nothing of another file (its signature
        # does, but the signature is not blanked).
        self.assertEqual([t["function_name"] for t in tasks], ["main"])
        L = self.line
        main = self.task(tasks, "main")
        self.assertEqual(self.gold(main), [
            # a tag, a macro and a typedef of the header "util.h" found
            # in the include directory
            ("item", UTIL, L(UTIL, "struct item {"), L(UTIL, "};"), True,
             "include"),
            ("MAX_ITEMS", UTIL, L(UTIL, "MAX_ITEMS"), L(UTIL, "MAX_ITEMS"),
             True, "include"),
            ("item_t", UTIL, L(UTIL, "typedef"), L(UTIL, "typedef"), True,
             "include"),
            # declared in the header, defined in count.c: the definition
            ("item_count", "src/count.c", L("src/count.c", "int item_count"),
             L("src/count.c", "}"), True, "definition"),
            ("twice", "src/main.c", L("src/main.c", "static int twice"),
             L("src/main.c", "}"), False, "same-file"),
            # the first branch of #ifdef; the #else stub is not read
            ("fast", UTIL, L(UTIL, "return 1"), L(UTIL, "return 1"), True,
             "include")])
        self.assert_blanked(main)

    def test_directives_and_literals_are_masked(self):
        f = c_tasks.File("x.c", '#define OPEN {\nchar *s = "}";\n', "c")
        self.assertEqual([d["name"] for d in f.defs], ["OPEN", "s"])
        self.assertEqual(f.includes, [])


HPP = "include/lib/shape.hpp"
CPP = "src/shape.cpp"


class CppTasksTest(ProjectCase):
    FILES = {
        HPP: """\
            #pragma once
            namespace lib {

            class Shape {
            public:
                explicit Shape(int n) : n_(n) {}
                int sides() const;
                static Shape square();

            private:
                int n_;
            };

            inline int twice(int x) {
                return 2 * x;
            }

            }  // namespace lib
            """,
        CPP: """\
            #include "lib/shape.hpp"

            namespace lib {

            int Shape::sides() const {
                int half = twice(n_);
                return half / 2;
            }

            Shape Shape::square() {
                Shape s(4);
                return s;
            }

            }  // namespace lib
            """,
        "src/main.cpp": """\
            #include <lib/shape.hpp>

            int run() {
                lib::Shape s = lib::Shape::square();
                return s.sides() + lib::twice(1);
            }
            """,
    }

    def test_namespaces_and_out_of_class_members(self):
        tasks, _ = c_tasks.build_tasks(self.root, "demo", lang="cpp")
        L = self.line
        run = self.task(tasks, "run")
        self.assertEqual(self.gold(run), [
            ("lib::Shape", HPP, L(HPP, "class Shape"), L(HPP, "};"), True,
             "member"),
            # declared in the class, defined out of it in shape.cpp
            ("lib::Shape::square", CPP, L(CPP, "Shape Shape::square"),
             L(CPP, "Shape Shape::square") + 3, True, "member"),
            ("lib::twice", HPP, L(HPP, "inline int twice"),
             L(HPP, "inline int twice") + 2, True, "member")])
        sides = self.task(tasks, "lib::Shape::sides")
        self.assertEqual(self.gold(sides), [
            ("twice", HPP, L(HPP, "inline int twice"),
             L(HPP, "inline int twice") + 2, True, "include"),
            # a data member of the class, declared in the header
            ("n_", HPP, L(HPP, "int n_;"), L(HPP, "int n_;"), True,
             "member")])
        self.assert_blanked(sides)


if __name__ == "__main__":
    unittest.main()
