package io.tributary.gold;

/**
 * A model whose result cannot be committed: a failed test, rows outside its interval, a result that no longer fits
 * its table. The message names the model and shows offending rows; the table keeps its previous snapshot.
 */
public final class ModelFailedException extends RuntimeException {
  public ModelFailedException(String message) {
    super(message);
  }
}
