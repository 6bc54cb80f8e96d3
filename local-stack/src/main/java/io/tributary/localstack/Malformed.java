package io.tributary.localstack;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.tributary.localstack.GeneratedRecord.Kind;
import java.util.Random;

/** Records that must end up in quarantine: broken JSON, bytes that are not UTF-8, an unknown op, a missing key. */
final class Malformed {
  private Malformed() {}

  static GeneratedRecord customerChange(Random random, long timestamp) {
    byte[] key = "{\"id\":999999}".getBytes(UTF_8);
    byte[] value = switch (random.nextInt(4)) {
      case 0 -> "{\"before\":null,\"after\":{\"id\":999999,\"name\":".getBytes(UTF_8);
      case 1 -> new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0x00, 0x7B};
      case 2 -> ("{\"before\":null,\"after\":{\"id\":999999},\"source\":{\"connector\":\"postgresql\",\"lsn\":1,"
          + "\"ts_ms\":" + timestamp
          + "},\"op\":\"x\",\"ts_ms\":" + timestamp + "}").getBytes(UTF_8);
      default -> ("{\"before\":null,\"after\":{\"name\":\"no id\"},\"source\":{\"connector\":\"postgresql\","
          + "\"lsn\":2,\"ts_ms\":" + timestamp
          + "},\"op\":\"c\",\"ts_ms\":" + timestamp + "}").getBytes(UTF_8);
    };
    return new GeneratedRecord(GeneratorOptions.CUSTOMERS_TOPIC, key, value, timestamp, Kind.MALFORMED);
  }

  static GeneratedRecord order(Random random, long timestamp) {
    byte[] value = random.nextBoolean()
        ? "{\"order_id\":\"o-broken\",\"amount\":".getBytes(UTF_8)
        : ("{\"order_id\":\"o-badamount\",\"customer_id\":1,\"status\":\"paid\",\"amount\":\"twelve\",\"currency\":\"EUR\""
            + ",\"event_time\":\"not a time\",\"seq\":1}").getBytes(UTF_8);
    return new GeneratedRecord(GeneratorOptions.ORDERS_TOPIC, "o-broken".getBytes(UTF_8), value, timestamp, Kind.MALFORMED);
  }
}
