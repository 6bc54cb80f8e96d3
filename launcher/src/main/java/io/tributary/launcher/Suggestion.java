package io.tributary.launcher;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * The name a misspelt word most likely meant (the word itself is no candidate): the closest candidate by edits (a
 * letter added, dropped, changed, or two neighbours swapped), if it is at most two edits away and closer than half
 * the word.
 */
final class Suggestion {
  private Suggestion() {}

  static Optional<String> closest(String word, Collection<String> candidates) {
    return candidates.stream()
        .filter(candidate -> {
          int edits = edits(word, candidate);
          return edits <= 2 && edits * 2 < word.length();
        })
        .min(Comparator.comparingInt((String candidate) -> edits(word, candidate))
            .thenComparing(candidate -> candidate));
  }

  /** Optimal string alignment distance: Levenshtein's edits plus the swap of two neighbouring letters. */
  static int edits(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
