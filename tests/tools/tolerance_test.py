#!/usr/bin/python3
"""tools/tolerance.py: a page's block matches the code's marked text word for word, marked figures
within their tolerance, and fails otherwise (ctest: tools/tolerance)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from tolerance import ACCURACY, STEERED, acc, below, mismatches, plain, steered  # noqa: E402

CODE = f"ends at {acc(0.8062)} after {steered(133)} rounds ({steered('433.2 MB')} up) and {below(0.2090, 0.3)}."


class Tolerance(unittest.TestCase):
    def test_plain_is_the_page_text(self):
        self.assertEqual(plain(CODE), "ends at 0.8062 after 133 rounds (433.2 MB up) and below 0.3.")

    def test_the_same_text_matches(self):
        self.assertEqual(mismatches(plain(CODE), CODE), [])

    def test_line_breaks_do_not_count(self):
        self.assertEqual(mismatches("ends at 0.8062\nafter 133 rounds (433.2\nMB up) and below 0.3.", CODE), [])

    def test_accuracy_within_and_beyond(self):
        inside = f"{0.8062 - ACCURACY + 1e-4:.4f}"
        self.assertEqual(mismatches(plain(CODE).replace("0.8062", inside), CODE), [])
        outside = f"{0.8062 + ACCURACY + 1e-4:.4f}"
        self.assertEqual(len(mismatches(plain(CODE).replace("0.8062", outside), CODE)), 1)

    def test_steered_relative_or_one_unit(self):
        self.assertEqual(mismatches(plain(CODE).replace("133", str(round(133 * (1 + STEERED)) - 1)), CODE), [])
        self.assertEqual(len(mismatches(plain(CODE).replace("133", "150"), CODE)), 1)
        small = f"{steered(2)} restarts"
        self.assertEqual(mismatches("3 restarts", small), [])  # one unit of the last digit
        self.assertEqual(len(mismatches("4 restarts", small)), 1)

    def test_words_and_exact_figures_must_match(self):
        self.assertEqual(len(mismatches(plain(CODE).replace("rounds", "pushes"), CODE)), 1)
        self.assertEqual(len(mismatches(plain(CODE).replace("MB", "kB"), CODE)), 1)
        self.assertEqual(len(mismatches("exactly 1,200 pushes", "exactly 1,201 pushes")), 1)
        self.assertEqual(len(mismatches(plain(CODE) + " more", CODE)), 1)

    def test_below_states_what_the_run_shows(self):
        self.assertEqual(below(0.13, 0.3), "below 0.3")
        self.assertEqual(len(mismatches(plain(CODE), CODE.replace("below 0.3", below(0.45, 0.3)))), 1)


if __name__ == "__main__":
    unittest.main()
