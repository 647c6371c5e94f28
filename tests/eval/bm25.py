"""Okapi BM25 over an editable document set, and the baselines' tokenizer.

The index is editable because every task changes one file of the corpus: the
target file is replaced by its blanked copy, so its documents are removed and
the blanked ones added, and the collection statistics (document frequency,
average length) follow. Rebuilding the whole index per task would cost a
full re-tokenization of the repository 171 times.
"""

import math
import re
from collections import Counter

K1 = 1.2
B = 0.75

# The baselines use simple word tokens, as RepoCoder does: "alnum" (the
# default) splits on every non-alphanumeric character, so snake_case falls
# apart at "_" but camelCase stays whole and case is kept. "word" keeps "_"
# inside tokens (\w); "subword" also splits camelCase and lowercases. The
# two others exist to measure how much the choice matters.
_WORD = re.compile(r"[A-Za-z0-9_]+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

TOKENIZERS = ("word", "alnum", "subword")


def tokenize(text, mode="alnum"):
    """Returns the list of tokens of text (duplicates kept, order kept)."""
    if mode == "word":
        return _WORD.findall(text)
    if mode == "alnum":
        return _ALNUM.findall(text)
    if mode == "subword":
        out = []
        for w in _ALNUM.findall(text):
            out.extend(p.lower() for p in _CAMEL.findall(w))
        return out
    raise ValueError("unknown tokenizer: %s" % mode)


class BM25:
    """BM25 with Lucene's non-negative idf: ln(1 + (N - df + .5)/(df + .5)).

    Documents are keyed by any hashable id. Query terms count with their
    multiplicity (a term written twice in the query weighs twice), as in
    Lucene's boolean query over analyzed text and in rank_bm25.
    """

    def __init__(self, k1=K1, b=B):
        self.k1 = k1
        self.b = b
        self.postings = {}  # term -> {doc id: term frequency}
        self.lengths = {}  # doc id -> number of tokens
        self.total = 0  # sum of lengths

    def add(self, doc_id, tokens):
        if doc_id in self.lengths:
            raise KeyError("duplicate document id: %r" % (doc_id,))
        for term, tf in Counter(tokens).items():
            self.postings.setdefault(term, {})[doc_id] = tf
        self.lengths[doc_id] = len(tokens)
        self.total += len(tokens)

    def remove(self, doc_id, tokens):
        """Removes a document; tokens must be those it was added with."""
        for term in set(tokens):
            p = self.postings[term]
            del p[doc_id]
            if not p:
                del self.postings[term]
        self.total -= self.lengths.pop(doc_id)

    def __len__(self):
        return len(self.lengths)

    def idf(self, term):
        n = len(self.lengths)
        df = len(self.postings.get(term, ()))
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query_tokens):
        """Returns {doc id: score} for documents sharing a term with the
        query; every other document scores 0."""
        if not self.lengths:
            return {}
        avgdl = self.total / len(self.lengths)
        out = {}
        for term, qtf in Counter(query_tokens).items():
            p = self.postings.get(term)
            if not p:
                continue
            w = qtf * self.idf(term)
            for d, tf in p.items():
                norm = self.k1 * (1 - self.b + self.b * self.lengths[d] / avgdl)
                out[d] = out.get(d, 0.0) + w * tf * (self.k1 + 1) / (tf + norm)
        return out
