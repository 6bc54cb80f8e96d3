package io.tributary.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.apache.spark.sql.Row;

/**
 * Draws latency over time as a PNG: per bin of Kafka time, bronze p95 and silver p50, p95 and max, in seconds. Plain
 * Java2D, headless, so the benchmark needs nothing beyond the JDK to draw it.
 */
final class FreshnessChart {
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 520;
  private static final int LEFT = 70;
  private static final int RIGHT = 20;
  private static final int TOP = 50;
  private static final int BOTTOM = 60;

  /** A line of the chart: the bin's column it plots, its name and colour. */
  private record Series(int column, String name, Color color, float width) {}

  private static final List<Series> SERIES = List.of(
      new Series(3, "bronze p95", new Color(0x1f77b4), 2f),
      new Series(5, "silver p50", new Color(0xff9f40), 2f),
      new Series(6, "silver p95", new Color(0xd62728), 3f),
      new Series(7, "silver max", new Color(0xd6a0a0), 1.5f));

  private FreshnessChart() {}

  /**
   * @param bins rows of (bin start in s, records, bronze p50, p95, max, silver p50, p95, max), ordered by time
   */
  static void draw(Path file, String title, List<Row> bins, int binSeconds) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    double maxX = bins.isEmpty() ? binSeconds : bins.get(bins.size() - 1).getInt(0) + binSeconds;
    double maxY = 1;
    for (Row bin : bins) {
      for (Series series : SERIES) {
        maxY = Math.max(maxY, bin.getDouble(series.column()));
      }
    }
    maxY = niceCeiling(maxY);
    int plotWidth = WIDTH - LEFT - RIGHT;
    int plotHeight = HEIGHT - TOP - BOTTOM;

    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    for (int i = 0; i <= 5; i++) {
      double value = maxY * i / 5;
      int y = TOP + plotHeight - (int) (plotHeight * value / maxY);
      g.setColor(new Color(0xe8e8e8));
      g.drawLine(LEFT, y, LEFT + plotWidth, y);
      g.setColor(Color.DARK_GRAY);
      g.drawString(String.format("%.0f s", value), 15, y + 4);
    }
    double step = niceCeiling(maxX / 10);
    for (double value = 0; value <= maxX; value += step) {
      int x = LEFT + (int) (plotWidth * value / maxX);
      g.setColor(Color.DARK_GRAY);
      g.drawString(String.format("%.0f", value), x - 10, TOP + plotHeight + 18);
    }
    g.drawString("seconds since the measured span began (Kafka time)", LEFT + plotWidth / 2 - 150, HEIGHT - 20);
    g.drawRect(LEFT, TOP, plotWidth, plotHeight);

    for (Series series : SERIES) {
      g.setColor(series.color());
      g.setStroke(new BasicStroke(series.width()));
      int previousX = -1;
      int previousY = -1;
      for (Row bin : bins) {
        int x = LEFT + (int) (plotWidth * (bin.getInt(0) + binSeconds / 2.0) / maxX);
        int y = TOP + plotHeight - (int) (plotHeight * bin.getDouble(series.column()) / maxY);
        if (previousX >= 0) {
          g.drawLine(previousX, previousY, x, y);
        }
        previousX = x;
        previousY = y;
      }
    }

    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.setColor(Color.BLACK);
    g.drawString(title, LEFT, 25);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int legendX = LEFT + 10;
    for (Series series : SERIES) {
      g.setColor(series.color());
      g.setStroke(new BasicStroke(series.width()));
      g.drawLine(legendX, TOP + 15, legendX + 20, TOP + 15);
      g.setColor(Color.DARK_GRAY);
      g.drawString(series.name(), legendX + 25, TOP + 19);
      legendX += 110;
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
  }

  /** 1, 2 or 5 times a power of ten, at or above {@code value}. */
  private static double niceCeiling(double value) {
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * power >= value) {
        return step * power;
      }
    }
    return 10 * power;
  }
}
