package io.tributary.silver;

import io.tributary.common.config.TableFormat;
import io.tributary.common.config.TableName;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.TableAddress;
import io.tributary.common.lakehouse.Tables;

/** Where silver finds its tables: bronze's in bronze's format, its own (entities and quarantine) in silver's. */
record SilverLayout(Tables tables, TableFormat bronzeFormat, TableFormat silverFormat) {

  /** Bronze in its format, silver in Iceberg: the shadow tables of an Iceberg table's rebuild. */
  static SilverLayout icebergSilver(TributaryConfig config) {
    return new SilverLayout(new Tables(config.catalog()), config.bronze().format(), TableFormat.ICEBERG);
  }

  static SilverLayout of(TributaryConfig config) {
    return new SilverLayout(new Tables(config.catalog()), config.bronze().format(), config.silver().format());
  }

  TableAddress bronze(TableName table) {
    return TableAddress.of(tables, table, bronzeFormat);
  }

  TableAddress silver(TableName table) {
    return TableAddress.of(tables, table, silverFormat);
  }
}
