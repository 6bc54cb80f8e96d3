package io.tributary.silver;

import io.tributary.common.lakehouse.SilverCheckpoints;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Switches an existing live silver table to a shadow's content so that a stream still committing to the live table
 * can neither be lost nor interleave:
 *
 * <ol>
 *   <li>{@link #fence}: one commit names the shadow's checkpoint as the table's and marks it as being switched, and
 *       gives the table the shadow's columns, partitioning and properties. From then on the live table's stream
 *       stops at its next batch and a restarted one waits for the mark to go; a batch already in flight may still
 *       commit once.
 *   <li>{@link #replaceContent}: the shadow's rows replace every row, in one commit that Iceberg applies only if no
 *       commit added rows or deletes to the live table since the snapshot the shadow was last caught up after. A
 *       batch in flight that committed in between makes it fail ({@link Outcome#LIVE_MOVED}): catch the shadow up
 *       again and repeat.
 * </ol>
 *
 * Between the two commits readers see the old rows, in the shadow's columns where the rebuild changed them (a
 * column the rebuild adds reads null until the second commit).
 */
final class LiveSwitch {
  /** How a content replacement ended. */
  enum Outcome { REPLACED, LIVE_MOVED }

  private LiveSwitch() {}

  /** The first commit: checkpoint, switching mark, columns, partitioning and properties of the shadow. */
  static void fence(Table live, Table shadow, Map<String, String> properties) {
    live.refresh();
    Transaction transaction = live.newTransaction();
    alignPartitioning(transaction, live.spec(), shadow.spec(), shadow.schema());
    alignColumns(transaction, live.schema(), shadow.schema());
    UpdateProperties update = transaction.updateProperties();
    properties.forEach((name, value) -> {
      if (!TableProperties.RESERVED_PROPERTIES.contains(name) && !name.equals("owner")) {
        update.set(name, value);
      }
    });
    // Tributary's state of the old content (a remembered truncate, say) does not describe the shadow's.
    live.properties().keySet().stream().filter(name -> name.startsWith("tributary.") && !properties.containsKey(name))
        .forEach(update::remove);
    update.commit();
    transaction.commitTransaction();
  }

  /**
   * The second commit: the shadow's rows instead of the live table's, provided nothing was committed to the live
   * table after {@code seen} (its snapshot when the shadow's last catch-up began; empty for a table without one).
   */
  static Outcome replaceContent(SparkSession spark, String shadow, String live, OptionalLong seen) {
    var write = spark.table(shadow).writeTo(live);
    if (seen.isPresent()) {
      write = write.option("isolation-level", "serializable")
          .option("validate-from-snapshot-id", String.valueOf(seen.getAsLong()));
    }
    try {
      write.overwrite(functions.lit(true));
      return Outcome.REPLACED;
    } catch (Exception e) { // Spark wraps the commit's failure in its checked SparkException, undeclared
      if (causedByValidation(e)) {
        return Outcome.LIVE_MOVED;
      }
      throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The marked table's mark removed: streams may commit to it again. */
  static void release(Table live) {
    live.refresh();
    live.updateProperties().remove(SilverCheckpoints.SWITCHING).commit();
  }

  private static boolean causedByValidation(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ValidationException) {
        return true;
      }
    }
    return false;
  }

  /** The live partitioning replaced by the shadow's when they differ (the rebuild may bucket another key). */
  private static void alignPartitioning(Transaction transaction, PartitionSpec live, PartitionSpec shadow,
      Schema shadowSchema) {
    if (describe(live, live.schema()).equals(describe(shadow, shadowSchema))) {
      return;
    }
    // Removed in one update and added in the next: a field of the same name may come back with another transform.
    UpdatePartitionSpec remove = transaction.updateSpec();
    live.fields().forEach(field -> remove.removeField(field.name()));
    remove.commit();
    UpdatePartitionSpec add = transaction.updateSpec();
    for (PartitionField field : shadow.fields()) {
      add.addField(field.name(), Expressions.transform(shadowSchema.findColumnName(field.sourceId()),
          field.transform()));
    }
    add.commit();
  }

  private static List<String> describe(PartitionSpec spec, Schema schema) {
    return spec.fields().stream().map(field -> field.transform() + "(" + schema.findColumnName(field.sourceId())
        + ")").toList();
  }

  /**
   * The live columns made the shadow's, by name: a column the shadow lacks is dropped, a type the shadow widens is
   * widened, any other changed type is dropped and added again (its old values are not the rebuilt ones), and the
   * order becomes the shadow's.
   */
  private static void alignColumns(Transaction transaction, Schema live, Schema shadow) {
    Set<String> dropped = new HashSet<>();
    UpdateSchema drop = transaction.updateSchema();
    for (Types.NestedField column : live.columns()) {
      Types.NestedField wanted = shadow.asStruct().field(column.name());
      if (wanted == null || !(sameType(column.type(), wanted.type()) || widens(column.type(), wanted.type()))) {
        drop.deleteColumn(column.name());
        dropped.add(column.name());
      }
    }
    drop.commit();
    UpdateSchema add = transaction.updateSchema();
    for (Types.NestedField column : shadow.columns()) {
      Optional<Types.NestedField> present = Optional.ofNullable(live.asStruct().field(column.name()))
          .filter(field -> !dropped.contains(field.name()));
      if (present.isEmpty()) {
        add.addColumn(column.name(), column.type(), column.doc());
      } else if (!sameType(present.get().type(), column.type())) {
        add.updateColumn(column.name(), column.type().asPrimitiveType());
      }
      if (present.isPresent() && present.get().isRequired() && column.isOptional()) {
        add.makeColumnOptional(column.name());
      }
    }
    List<Types.NestedField> order = shadow.columns();
    add.moveFirst(order.get(0).name());
    for (int i = 1; i < order.size(); i++) {
      add.moveAfter(order.get(i).name(), order.get(i - 1).name());
    }
    add.commit();
  }

  /** The same type, whatever field ids a nested type's parts have. */
  private static boolean sameType(Type live, Type shadow) {
    return SparkSchemaUtil.convert(live).equals(SparkSchemaUtil.convert(shadow));
  }

  private static boolean widens(Type live, Type shadow) {
    return live.isPrimitiveType() && shadow.isPrimitiveType()
        && TypeUtil.isPromotionAllowed(live, shadow.asPrimitiveType());
  }
}
