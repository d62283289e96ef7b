"""The benchmark suite: the paper's task types on real offline datasets, scored as in its appendix B.4."""
