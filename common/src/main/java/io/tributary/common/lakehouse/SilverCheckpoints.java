package io.tributary.common.lakehouse;

import io.tributary.common.config.SilverEntity;
import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TributaryConfig;
import org.apache.iceberg.Table;

/**
 * Which checkpoint an entity's silver stream runs with. By default the one its config names; after a rebuild or a
 * rollback, the checkpoint that goes with the table's new content, which the switch records in a table property in
 * the same commit. The stream, the maintenance job (which reads the streams' positions on bronze) and the recovery
 * commands all ask here.
 */
public final class SilverCheckpoints {
  /** The table property naming the checkpoint that matches the table's content. */
  public static final String PROPERTY = "tributary.silver.checkpoint";

  private SilverCheckpoints() {}

  /** The checkpoint the config names for the entity: where its first stream runs. */
  public static String configured(TributaryConfig config, SilverEntity entity) {
    return config.checkpointFor("silver", TableFormat.ICEBERG, entity.table());
  }

  /** The checkpoint that matches the silver table's current content. */
  public static String current(TributaryConfig config, SilverEntity entity, Table silverTable) {
    String recorded = silverTable.properties().get(PROPERTY);
    return recorded != null ? recorded : configured(config, entity);
  }

  /** A new checkpoint folder next to the configured one, for a rebuilt or rewound stream. */
  public static String next(TributaryConfig config, SilverEntity entity, String purpose) {
    return configured(config, entity) + "@" + purpose + "-" + System.currentTimeMillis();
  }
}
