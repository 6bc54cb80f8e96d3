package io.tributary.devtools;

import com.typesafe.config.ConfigFactory;
import io.tributary.common.config.TributaryConfig;
import io.tributary.common.lakehouse.LakehouseSession;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the notebooks in {@code notebooks/} use: the lakehouse of a config file in a local Spark session, a bar
 * chart, and checks that fail the cell (and the notebook run) when the data is not what the notebook says it shows.
 * Rows are shown with Spark's own {@code Dataset.show}.
 */
public final class NotebookLakehouse {
  /**
   * The Java kernel sets java.util.logging's root level to FINEST. Janino, Spark's code compiler, then formats a
   * trace message for every step, and formatting one of them throws (StringIndexOutOfBoundsException in
   * IClass.toString), which fails the compilation: an ORDER BY ... LIMIT has no interpreted fallback. Held in a
   * field because java.util.logging keeps loggers weakly (a collected logger forgets its level).
   */
  private static final Logger JANINO_TRACE = Logger.getLogger("org.codehaus");

  private final Path configFile;
  private final Path home;
  private final TributaryConfig config;
  private final SparkSession spark;

  private NotebookLakehouse(Path configFile, Path home, TributaryConfig config, SparkSession spark) {
    this.configFile = configFile;
    this.home = home;
    this.config = config;
    this.spark = spark;
  }

  /**
   * The lakehouse of {@code configFile} (null: {@code conf/application.conf}, the demo's), in a local session unless
   * a master is set. Relative paths, the file's and those in it, are relative to the project folder:
   * {@code TRIBUTARY_HOME}, which the kernel spec sets (a kernel runs in its notebook's folder), else the working
   * directory.
   */
  public static NotebookLakehouse open(String configFile) {
    JANINO_TRACE.setLevel(Level.INFO);
    Path home = Path.of(Optional.ofNullable(System.getenv("TRIBUTARY_HOME")).orElse("")).toAbsolutePath();
    Path file = home.resolve(configFile == null || configFile.isBlank() ? "conf/application.conf" : configFile);
    TributaryConfig config = TributaryConfig.load(file, ConfigFactory.empty(), home);
    var builder = LakehouseSession.builder(config, "notebook");
    if (System.getProperty("spark.master") == null) {
      builder = builder.master("local[2]").config("spark.ui.enabled", "false")
          // Not Spark's default ./spark-warehouse: the kernel runs in the notebook's folder.
          .config("spark.sql.warehouse.dir", home.resolve("var/spark-warehouse").toString())
          .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1");
    }
    SparkSession spark = builder.getOrCreate();
    LakehouseSession.registerCatalog(spark, config.catalog());
    io.tributary.common.lakehouse.DeltaTableNames.registerAll(spark, config);
    return new NotebookLakehouse(file, home, config, spark);
  }

  public SparkSession spark() {
    return spark;
  }

  public Dataset<Row> sql(String query) {
    return spark.sql(query);
  }

  public TributaryConfig config() {
    return config;
  }

  /**
   * The same config file with some settings changed (HOCON, e.g. a maintenance policy), validated as a job would:
   * an unknown key or a bad value fails naming it.
   */
  public TributaryConfig configWith(String settings) {
    return TributaryConfig.load(configFile, ConfigFactory.parseString(settings), home);
  }

  /** {@code namespace.table} with the catalog in front, for SQL. */
  public String table(String namespaceAndTable) {
    return config.catalog().name() + "." + namespaceAndTable;
  }

  /** The tables of a namespace, e.g. {@code silver}. */
  public List<String> tables(String namespace) {
    return spark.sql("SHOW TABLES IN " + config.catalog().name() + "." + namespace).collectAsList().stream()
        .map(row -> namespace + "." + row.getString(1)).sorted().toList();
  }

  /** Fails the cell with {@code message} unless {@code condition} holds. */
  public static void check(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError("check failed: " + message);
    }
  }

  /** A bar chart of the rows' first column (label) and second column (a number). */
  public static BufferedImage barChart(String title, Dataset<Row> rows) {
    List<Row> bars = rows.collectAsList();
    int width = 760;
    int height = 360;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    g.setColor(Color.DARK_GRAY);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(title, 16, 22);
    double max = bars.stream().mapToDouble(row -> ((Number) row.get(1)).doubleValue()).max().orElse(1);
    int left = 16;
    int bottom = height - 40;
    int plotHeight = bottom - 40;
    int slot = bars.isEmpty() ? 0 : (width - 2 * left) / bars.size();
    g.setStroke(new BasicStroke(1));
    g.drawLine(left, bottom, width - left, bottom);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    for (int i = 0; i < bars.size(); i++) {
      double value = ((Number) bars.get(i).get(1)).doubleValue();
      int barHeight = max <= 0 ? 0 : (int) Math.round(plotHeight * value / max);
      int x = left + i * slot + slot / 8;
      g.setColor(new Color(70, 120, 180));
      g.fillRect(x, bottom - barHeight, Math.max(1, slot * 3 / 4), barHeight);
      g.setColor(Color.DARK_GRAY);
      g.drawString(String.valueOf(bars.get(i).get(0)), x, bottom + 14);
    }
    g.dispose();
    return image;
  }
}
