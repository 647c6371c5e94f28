"""Unit tests of the Rust task generator (rust_tasks.py) on a crate
written to a temporary directory: the module tree, use trees, impl
functions, typed receivers and macro_rules."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rust_tasks  # noqa: E402
from taskcase import ProjectCase  # noqa: E402


class RustTasksTest(ProjectCase):
    FILES = {
        "Cargo.toml": """\
            [package]
            name = "demo"
            edition = "2018"
            """,
        "src/lib.rs": """\
            pub mod ast;
            mod parse;
            #[cfg(test)]
            mod tests;

            pub use crate::ast::Node;
            """,
        "src/ast.rs": """\
            /// A node.
            #[derive(Debug)]
            pub struct Node {
                pub kind: u8,
            }

            impl Node {
                pub fn new(kind: u8) -> Self {
                    Node { kind }
                }

                pub fn is_leaf(&self) -> bool {
                    self.kind == 0
                }
            }

            pub enum Kind {
                Leaf,
                Branch,
            }

            #[macro_export]
            macro_rules! leaf {
                () => {
                    $crate::ast::Node::new(0)
                };
            }
            """,
        "src/parse/mod.rs": """\
            use crate::ast::{Kind, Node as N};
            use super::ast;

            pub fn parse(text: &str) -> N {
                let n = N::new(text.len() as u8);
                if n.is_leaf() {
                    let _k = Kind::Leaf;
                }
                let m = ast::Node::new(1);
                helper(m)
            }

            fn helper(n: N) -> N {
                n
            }

            pub fn first(node: &N) -> bool {
                let x = leaf!();
                node.is_leaf() && x.kind == 0
            }
            """,
        "src/tests.rs": """\
            use crate::ast::Node;

            fn make() -> Node {
                let n = Node::new(3);
                n
            }
            """,
    }

    def test_uses_impls_and_receivers(self):
        tasks, _ = rust_tasks.build_tasks(self.root, "demo")
        # tests.rs is a test module: no task from it.
        self.assertEqual(sorted(t["function_name"] for t in tasks),
                         ["first", "parse"])
        L = self.line
        ast = "src/ast.rs"
        new = ("N::new", ast, L(ast, "pub fn new"), L(ast, "pub fn new") + 2,
               True, "impl")
        parse = self.task(tasks, "parse")
        self.assertEqual(parse["file"], "src/parse/mod.rs")
        self.assertEqual(self.gold(parse), [
            # `Node as N` from a grouped use; Type::f is the impl's fn
            new,
            # n = N::new(..) and new returns Self: n is a Node
            ("n.is_leaf", ast, L(ast, "pub fn is_leaf"),
             L(ast, "pub fn is_leaf") + 2, True, "receiver"),
            # an enum's variant gives the enum
            ("Kind::Leaf", ast, L(ast, "pub enum Kind"),
             L(ast, "pub enum Kind") + 3, True, "use"),
            ("helper", "src/parse/mod.rs", L("src/parse/mod.rs", "fn helper"),
             L("src/parse/mod.rs", "fn helper") + 2, False, "module")])
        self.assert_blanked(parse)

    def test_macros_and_parameter_types(self):
        tasks, _ = rust_tasks.build_tasks(self.root, "demo")
        L = self.line
        ast = "src/ast.rs"
        first = self.task(tasks, "first")
        self.assertEqual(self.gold(first), [
            ("leaf!", ast, L(ast, "#[macro_export]"),
             L(ast, "#[macro_export]") + 5, True, "macro"),
            ("node.is_leaf", ast, L(ast, "pub fn is_leaf"),
             L(ast, "pub fn is_leaf") + 2, True, "receiver")])

    def test_module_tree(self):
        c = rust_tasks.Crate(self.root)
        self.assertEqual(sorted(c.files), ["src/ast.rs", "src/lib.rs",
                                           "src/parse/mod.rs"])
        self.assertEqual(c.edition, "2018")
        # `pub use` re-exports are followed to the definition.
        t = c.resolve((), ("Node",))
        self.assertEqual((t[0], t[1]["file"], t[1]["name"]),
                         ("def", "src/ast.rs", "Node"))
        # `super::ast` from parse (a mod.rs) is the crate's ast.
        t = c.resolve(("parse",), ("super", "ast", "Kind"))
        self.assertEqual(t[1]["name"], "Kind")


if __name__ == "__main__":
    unittest.main()
