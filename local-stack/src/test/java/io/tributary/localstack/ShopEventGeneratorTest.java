package io.tributary.localstack;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.localstack.GeneratedRecord.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ShopEventGeneratorTest {
  private static final Pattern LSN = Pattern.compile("\"lsn\":(\\d+)");
  private static final Pattern OP = Pattern.compile("\"op\":\"(\\w)\"");

  private static GeneratorOptions options(double outOfOrder, double duplicates, double malformed, boolean truncate) {
    return new GeneratorOptions(3000, 3000, 40, outOfOrder, duplicates, malformed, truncate,
        Instant.parse("2026-11-01T00:00:00Z"), Duration.ofDays(2), 7);
  }

  private static List<GeneratedRecord> all(GeneratorOptions options) {
    List<GeneratedRecord> records = new ArrayList<>();
    ShopEventGenerator.records(options).forEachRemaining(records::add);
    return records;
  }

  @Test
  void sameSeedGivesSameRecords() {
    List<GeneratedRecord> first = all(options(0.2, 0.05, 0.01, true));
    List<GeneratedRecord> second = all(options(0.2, 0.05, 0.01, true));
    assertThat(second).hasSameSizeAs(first);
    for (int i = 0; i < first.size(); i++) {
      assertThat(second.get(i).value()).isEqualTo(first.get(i).value());
    }
  }

  @Test
  void deliversTheRequestedShareOfUpdatesOutOfOrder() {
    List<GeneratedRecord> records = all(options(0.3, 0, 0, false));
    Map<String, Long> newestLsnByKey = new HashMap<>();
    int changes = 0;
    int late = 0;
    for (GeneratedRecord record : records) {
      if (!record.topic().equals(GeneratorOptions.CUSTOMERS_TOPIC) || record.value() == null) {
        continue;
      }
      String value = new String(record.value(), UTF_8);
      Matcher lsn = LSN.matcher(value);
      assertThat(lsn.find()).isTrue();
      long sequence = Long.parseLong(lsn.group(1));
      String key = new String(record.key(), UTF_8);
      Long newest = newestLsnByKey.get(key);
      changes++;
      if (newest != null && sequence < newest) {
        late++;
      } else {
        newestLsnByKey.put(key, sequence);
      }
    }
    // 30% of updates (about 80% of the non-snapshot changes) are held back.
    assertThat((double) late / changes).isBetween(0.15, 0.35);
  }

  @Test
  void deletesAreFollowedByTombstonesAndTruncateIsEmittedOnce() {
    List<GeneratedRecord> records = all(options(0, 0, 0, true));
    int deletes = 0;
    int truncates = 0;
    for (int i = 0; i < records.size(); i++) {
      GeneratedRecord record = records.get(i);
      if (record.kind() == Kind.TOMBSTONE) {
        assertThat(record.value()).isNull();
        continue;
      }
      if (!record.topic().equals(GeneratorOptions.CUSTOMERS_TOPIC)) {
        continue;
      }
      Matcher op = OP.matcher(new String(record.value(), UTF_8));
      assertThat(op.find()).isTrue();
      if (op.group(1).equals("d")) {
        deletes++;
        GeneratedRecord tombstone = records.subList(i + 1, records.size()).stream()
            .filter(next -> next.topic().equals(record.topic()) && java.util.Arrays.equals(next.key(), record.key()))
            .findFirst().orElseThrow();
        assertThat(tombstone.kind()).isEqualTo(Kind.TOMBSTONE);
      }
      if (op.group(1).equals("t")) {
        truncates++;
        assertThat(record.key()).isNull();
      }
    }
    assertThat(deletes).isGreaterThan(50);
    assertThat(truncates).isEqualTo(1);
  }

  @Test
  void injectsDuplicatesAndMalformedRecordsAtTheRequestedRate() {
    List<GeneratedRecord> records = all(options(0, 0.1, 0.05, false));
    long duplicates = records.stream().filter(r -> r.kind() == Kind.DUPLICATE).count();
    long malformed = records.stream().filter(r -> r.kind() == Kind.MALFORMED).count();
    long events = records.stream().filter(r -> r.kind() == Kind.EVENT).count();
    assertThat((double) duplicates / events).isBetween(0.07, 0.13);
    assertThat((double) malformed / events).isBetween(0.03, 0.07);
  }
}
