"""Unit tests of the scorer (score.py), run by CTest as eval.scorer."""

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import score  # noqa: E402


def g(f, start, end, cross=False):
    return {"file": f, "start": start, "end": end, "cross_file": cross}


class HitTest(unittest.TestCase):
    def test_same_file_and_intersecting_lines(self):
        gold = [g("a.py", 10, 12)]
        self.assertEqual(score.hits(("a.py", 12, 20), gold), [0])
        self.assertEqual(score.hits(("a.py", 0, 10), gold), [0])
        self.assertEqual(score.hits(("a.py", 11, 11), gold), [0])

    def test_adjacent_or_other_file_misses(self):
        gold = [g("a.py", 10, 12)]
        self.assertEqual(score.hits(("a.py", 13, 30), gold), [])
        self.assertEqual(score.hits(("a.py", 0, 9), gold), [])
        self.assertEqual(score.hits(("b.py", 10, 12), gold), [])

    def test_one_chunk_hits_several(self):
        gold = [g("a.py", 1, 2), g("a.py", 5, 6), g("b.py", 1, 9)]
        self.assertEqual(score.hits(("a.py", 0, 9), gold), [0, 1])


class ScoreTaskTest(unittest.TestCase):
    def test_empty_gold_is_left_out(self):
        self.assertIsNone(score.score_task([("a.py", 0, 5)], []))
        means, n, skipped = score.mean_scores(
            [None, score.score_task([("a.py", 0, 0)], [g("a.py", 0, 0)])])
        self.assertEqual((n, skipped), (1, 1))
        self.assertEqual(means["recall@5"], 1.0)

    def test_credit_once_per_gold(self):
        gold = [g("a.py", 10, 12), g("b.py", 0, 3)]
        items = [("a.py", 10, 10), ("a.py", 11, 11), ("a.py", 12, 12)]
        s = score.score_task(items, gold)
        self.assertEqual(s["recall@5"], 0.5)
        # Only rank 1 gains; IDCG covers min(5, 2) = 2 ranks.
        idcg = 1.0 + 1.0 / math.log2(3)
        self.assertAlmostEqual(s["ndcg@5"], 1.0 / idcg)
        self.assertEqual(s["hit@5"], 1.0)
        self.assertEqual(s["mrr"], 1.0)

    def test_ranks_beyond_five_count_for_recall_at_10_only(self):
        gold = [g("a.py", 100, 110)]
        items = [("x.py", i, i) for i in range(6)] + [("a.py", 105, 120)]
        s = score.score_task(items, gold)
        self.assertEqual(s["recall@5"], 0.0)
        self.assertEqual(s["recall@10"], 1.0)
        self.assertEqual(s["ndcg@5"], 0.0)
        self.assertEqual(s["hit@5"], 0.0)
        self.assertAlmostEqual(s["mrr"], 1.0 / 7)

    def test_ndcg_perfect_and_shifted(self):
        gold = [g("a.py", 0, 0), g("b.py", 0, 0)]
        perfect = [("a.py", 0, 0), ("b.py", 0, 0)]
        self.assertAlmostEqual(score.score_task(perfect, gold)["ndcg@5"],
                               1.0)
        shifted = [("z.py", 0, 0)] + perfect
        want = (1 / math.log2(3) + 1 / math.log2(4)) / \
            (1 + 1 / math.log2(3))
        self.assertAlmostEqual(score.score_task(shifted, gold)["ndcg@5"],
                               want)

    def test_budget_stops_at_first_overflow(self):
        gold = [g("a.py", 0, 0), g("b.py", 0, 0)]
        # 100 + 60 > 150: the second item does not fit, and neither does
        # the small third one after it.
        items = [("a.py", 0, 99), ("c.py", 0, 59), ("b.py", 0, 0)]
        self.assertEqual(len(score.within_budget(items)), 1)
        s = score.score_task(items, gold)
        self.assertEqual(s["recall@budget"], 0.5)
        self.assertEqual(s["recall@5"], 1.0)
        self.assertEqual(s["lines@5"], 161.0)
        exact = [("a.py", 0, 99), ("b.py", 0, 49)]
        self.assertEqual(score.score_task(exact, gold)["recall@budget"], 1.0)

    def test_no_items(self):
        s = score.score_task([], [g("a.py", 0, 0)])
        self.assertEqual((s["recall@5"], s["mrr"], s["lines@5"]),
                         (0.0, 0.0, 0.0))

    def test_cross_file_variant(self):
        gold = [g("a.py", 0, 0), g("b.py", 5, 9, cross=True)]
        xf = score.cross_file_gold(gold)
        self.assertEqual(xf, [gold[1]])
        items = [("a.py", 0, 0)]
        self.assertEqual(score.score_task(items, gold)["recall@5"], 0.5)
        self.assertEqual(score.score_task(items, xf)["recall@5"], 0.0)
        self.assertIsNone(score.score_task(items, score.cross_file_gold(
            [g("a.py", 0, 0)])))

    def test_percentile(self):
        self.assertIsNone(score.percentile([], 50))
        v = list(range(1, 101))
        self.assertEqual(score.percentile(v, 50), 50)
        self.assertEqual(score.percentile(v, 99), 99)
        self.assertEqual(score.percentile([7.0], 99), 7.0)


if __name__ == "__main__":
    unittest.main()
