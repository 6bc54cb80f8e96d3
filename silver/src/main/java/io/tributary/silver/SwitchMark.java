package io.tributary.silver;

import io.tributary.common.lakehouse.SilverCheckpoints;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mark a rebuild or rollback sets on a silver table while it switches the table's content
 * ({@link SilverCheckpoints#SWITCHING}): a stream about to write to the table waits for it to go.
 */
final class SwitchMark {
  private static final Logger LOG = LoggerFactory.getLogger(SwitchMark.class);
  private static final Duration WAIT = Duration.ofMinutes(10);

  private SwitchMark() {}

  /**
   * Returns {@code table} (refreshed) once no switch is marked on it; fails after ten minutes of waiting.
   *
   * @param stream the waiting stream's name, for the log and the message
   * @param name the table's SQL name
   * @param poll the pause between two looks
   */
  static SilverTable awaitCleared(SilverTable table, String stream, String name, Duration poll) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (table.properties().containsKey(SilverCheckpoints.SWITCHING)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(stream + ": " + name + " is marked as being switched by a rebuild or"
            + " rollback (" + table.properties().get(SilverCheckpoints.SWITCHING) + ") for more than "
            + WAIT.toMinutes() + " minutes; if that command failed, run it again");
      }
      LOG.info("{}: waiting for the switch of {} to finish", stream, name);
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(stream + ": interrupted while waiting for a switch", e);
      }
      table.refresh();
    }
    return table;
  }
}
