import unittest

from textstats import average_word_length, word_count, word_frequencies


class WordCountTest(unittest.TestCase):
    def test_simple_sentence(self):
        self.assertEqual(word_count("the quick brown fox"), 4)

    def test_punctuation_and_spacing(self):
        self.assertEqual(word_count("Hello,   world!\nHow are you?"), 5)

    def test_empty_text(self):
        self.assertEqual(word_count(""), 0)


class FrequencyTest(unittest.TestCase):
    def test_counts_are_case_insensitive(self):
        self.assertEqual(word_frequencies("Go go GO stop"), {"go": 3, "stop": 1})

    def test_average_length(self):
        self.assertAlmostEqual(average_word_length("ab abcd"), 3.0)


if __name__ == "__main__":
    unittest.main()
