"""Unit tests of the TypeScript task generator (ts_tasks.py): ESM
specifiers and namespace imports, on a package written to a temporary
directory."""

import os
import shutil
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ts_tasks  # noqa: E402

FILES = {
    "src/Option.ts": """\
        export interface Option<A> {
          readonly _tag: string
        }

        export const getOrUndefined = <A>(self: Option<A>): A | undefined =>
          self._tag === "None" ? undefined : (self as any).value
        """,
    "src/config.ts": """\
        export function parseConfig(text: string): string {
          return text.trim()
        }
        """,
    "src/index.ts": """\
        export * from "./config.js"
        """,
    "src/app.ts": """\
        import * as Option from "./Option.js"
        import { parseConfig } from "./index.js"

        export function run(text: string) {
          const c = parseConfig(text)
          return Option.getOrUndefined(c as any)
        }

        export function second(text: string) {
          const d = parseConfig(text)
          return d.length
        }

        export function third(text: string) {
          const e = parseConfig(text)
          return e + e
        }
        """,
}


class TsTasksTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="ts-tasks-")
        for rel, text in FILES.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(textwrap.dedent(text))

    def tearDown(self):
        shutil.rmtree(self.root)

    def test_esm_specifiers_and_namespaces(self):
        tasks, dirs = ts_tasks.build_tasks(self.root, "demo")
        self.assertEqual(dirs, {"demo": os.path.realpath(self.root)})
        run = tasks[0]
        self.assertEqual((run["id"], run["file"], run["function_name"]),
                         ("demo/0", "src/app.ts", "run"))
        self.assertEqual(run["gt_span"], [4, 5])
        gold = {(g["name"], g["file"], g["start"], g["end"])
                for g in run["gold"]}
        self.assertEqual(gold, {
            # "./index.js" is index.ts, whose `export *` leads on
            ("parseConfig", "src/config.ts", 0, 2),
            # import * as Option from "./Option.js"; Option.getOrUndefined
            ("Option.getOrUndefined", "src/Option.ts", 4, 5)})
        self.assertTrue(all(g["cross_file"] for g in run["gold"]))
        self.assertEqual(len(run["text"].split("\n")),
                         len(textwrap.dedent(FILES["src/app.ts"])
                             .split("\n")))

    def test_resolution(self):
        files = {"a/x.ts", "a/y.tsx", "a/z.mts", "a/w.cts", "a/d/index.ts"}
        r = ts_tasks._resolve
        self.assertEqual(r("a", "./x.js", files), "a/x.ts")
        self.assertEqual(r("a", "./x", files), "a/x.ts")
        self.assertEqual(r("a", "./y.js", files), "a/y.tsx")
        self.assertEqual(r("a", "./y.jsx", files), "a/y.tsx")
        self.assertEqual(r("a", "./z.mjs", files), "a/z.mts")
        self.assertEqual(r("a", "./w.cjs", files), "a/w.cts")
        self.assertEqual(r("a", "./d", files), "a/d/index.ts")
        self.assertEqual(r("a/d", "../x.js", files), "a/x.ts")
        self.assertIsNone(r("a", "./q.js", files))

    def test_caps_and_pick(self):
        first, _ = ts_tasks.build_tasks(self.root, "demo", max_per_file=2)
        self.assertEqual([t["function_name"] for t in first],
                         ["run", "second"])
        spread, _ = ts_tasks.build_tasks(self.root, "demo", max_per_file=2,
                                         pick="spread")
        self.assertEqual([t["function_name"] for t in spread],
                         ["run", "third"])
        self.assertEqual(len(ts_tasks.build_tasks(self.root, "demo",
                                                  max_tasks=1)[0]), 1)
        self.assertEqual(ts_tasks.spread(10, 3), [0, 4, 9])
        self.assertEqual(ts_tasks.spread(2, 5), [0, 1])


if __name__ == "__main__":
    unittest.main()
