package io.tributary.common.lakehouse;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TributaryConfig;

/**
 * Which checkpoint an entity's silver stream runs with. By default the one its config names; after a rebuild or a
 * rollback, the checkpoint that goes with the table's new content, which the switch records in a table property in
 * the same commit. The stream, the maintenance job (which reads the streams' positions on bronze) and the recovery
 * commands all ask here.
 */
public final class SilverCheckpoints {
  /** The table property naming the checkpoint that matches the table's content. */
  public static final String PROPERTY = "tributary.silver.checkpoint";

  /**
   * Set while a rebuild or rollback switches a table and its entity's quarantine rows (two commits); a stream waits
   * for it to go before it starts.
   */
  public static final String SWITCHING = "tributary.silver.switching";

  /** The fingerprint of the entity config that the table's content was built with, set by a rebuild or rollback. */
  public static final String CONFIG = "tributary.silver.config";

  /** The fingerprint of an entity's config (everything but the table it is kept in). */
  public static String fingerprint(SilverEntity entity) {
    String text = entity.withTable(new io.tributary.common.config.TableName("_", "_")).toString();
    try {
      byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(digest, 0, 12);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private SilverCheckpoints() {}

  /** The checkpoint the config names for the entity: where its first stream runs. */
  public static String configured(TributaryConfig config, SilverEntity entity) {
    return config.checkpointFor(layer(config), config.silver().format(), entity.table());
  }

  /**
   * The layer's folder: {@code silver}, or {@code silver-from-delta} when bronze's format is not silver's. A stream's
   * offsets are positions in bronze's format, and the table is silver's: switching either starts a new stream.
   */
  private static String layer(TributaryConfig config) {
    return config.bronze().format() == config.silver().format() ? "silver"
        : "silver-from-" + io.tributary.common.config.ConfigNames.of(config.bronze().format());
  }

  /**
   * The checkpoint of a database block's one stream. Formats are part of it, as for an entity: a block whose tables
   * switch to Delta starts a new stream into new tables instead of resuming past the rows the old tables hold.
   */
  public static String database(TributaryConfig config, io.tributary.common.config.SilverDatabase database) {
    return config.checkpointFor(layer(config), config.silver().format(),
        new io.tributary.common.config.TableName("databases", database.name()));
  }

  /** The checkpoint that matches the silver table's current content, from the table's properties. */
  public static String current(TributaryConfig config, SilverEntity entity, java.util.Map<String, String> properties) {
    String recorded = properties.get(PROPERTY);
    return recorded != null ? recorded : configured(config, entity);
  }

  /** A new checkpoint folder next to the configured one, for a rebuilt or rewound stream. */
  public static String next(TributaryConfig config, SilverEntity entity, String purpose) {
    return configured(config, entity) + "@" + purpose + "-" + System.currentTimeMillis();
  }
}
