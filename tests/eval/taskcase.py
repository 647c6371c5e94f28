"""What the tests of the lexical task generators share: a project written
to a temporary directory, and the gold of a task as comparable tuples."""

import os
import shutil
import tempfile
import textwrap
import unittest


class ProjectCase(unittest.TestCase):
    """FILES ({relative path: text}, dedented) is laid out in self.root
    for every test."""

    FILES = {}

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="lang-tasks-")
        for rel, text in self.FILES.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(textwrap.dedent(text))

    def tearDown(self):
        shutil.rmtree(self.root)

    def line(self, rel, needle, nth=0):
        """The 0-based line of the nth line of rel containing needle."""
        lines = textwrap.dedent(self.FILES[rel]).split("\n")
        found = [i for i, s in enumerate(lines) if needle in s]
        return found[nth]

    @staticmethod
    def task(tasks, name):
        hits = [t for t in tasks if t["function_name"] == name]
        if len(hits) != 1:
            raise AssertionError("%d tasks named %s in %s" % (
                len(hits), name, [t["function_name"] for t in tasks]))
        return hits[0]

    @staticmethod
    def gold(task):
        """[(name, file, start, end, cross_file, via)] in gold order."""
        return [(g["name"], g["file"], g["start"], g["end"],
                 g["cross_file"], g["via"]) for g in task["gold"]]

    def assert_blanked(self, task):
        """The task's text is the file with its body emptied, line count
        kept."""
        lines = textwrap.dedent(self.FILES[task["file"]]).split("\n")
        got = task["text"].split("\n")
        self.assertEqual(len(got), len(lines))
        a, b = task["gt_span"]
        self.assertEqual(task["cursor_line"], a)
        self.assertTrue(all(not got[i] for i in range(a, b + 1)))
        self.assertEqual(got[:a] + got[b + 1:], lines[:a] + lines[b + 1:])
