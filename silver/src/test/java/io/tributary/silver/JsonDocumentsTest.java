package io.tributary.silver;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

class JsonDocumentsTest {

  private static String problem(String value) {
    return JsonDocuments.problem(value.getBytes(UTF_8));
  }

  @Test
  void oneDocumentOfAnyKindWithSurroundingWhitespacePasses() {
    assertThat(problem("{\"a\":[1,{\"b\":null}]}")).isNull();
    assertThat(problem(" \n{\"a\":\"x\"}\r\n ")).isNull();
    assertThat(problem("[1,2]")).isNull();
    assertThat(problem("42")).isNull();
    assertThat(JsonDocuments.problem(null)).as("a tombstone is not a document problem").isNull();
  }

  @Test
  void everyByteAfterTheFirstDocumentIsAccountedFor() {
    assertThat(problem("{\"a\":1}{\"a\":2}")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1}\n{\"a\":2}")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1}[2]")).isEqualTo("value holds more than one JSON document");
    assertThat(problem("{\"a\":1} 7")).isEqualTo("value has text after its JSON document");
    assertThat(problem("{\"a\":1}garbage")).isEqualTo("value has text after its JSON document");
    assertThat(problem("{\"a\":1}}")).isEqualTo("value has text after its JSON document");
  }

  @Test
  void onlyStrictJsonIsJson() {
    assertThat(problem("{'a':1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{a:1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":NaN}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":01}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":1,}")).isEqualTo("value is not valid JSON");
    assertThat(problem("/* c */ {\"a\":1}")).isEqualTo("value is not valid JSON");
    assertThat(problem("{\"a\":1")).isEqualTo("value is not valid JSON");
    assertThat(problem("")).isEqualTo("value is empty");
    assertThat(problem("   ")).isEqualTo("value is empty");
  }
  @Test
  void utf8IsValidExactlyWhenSparkSaysSo() {
    List<byte[]> values = new ArrayList<>(List.of(new byte[0], "{\"a\":1}".getBytes(UTF_8),
        "{\"name\":\"Zoë € 😀\"}".getBytes(UTF_8), bytes(0xc0, 0x80), bytes(0xed, 0xa0, 0x80), bytes(0xe2, 0x82),
        bytes(0x80), bytes(0xf4, 0x90, 0x80, 0x80), bytes(0xff), bytes(0x7b, 0x7f, 0x7d)));
    Random random = new Random(7);
    for (int i = 0; i < 5_000; i++) {
      byte[] value = new byte[random.nextInt(40)];
      for (int j = 0; j < value.length; j++) {
        // Mostly ASCII, as JSON is, with a byte of any value now and then.
        value[j] = (byte) (random.nextInt(8) == 0 ? random.nextInt(256) : random.nextInt(128));
      }
      values.add(value);
    }
    int valid = 0;
    for (byte[] value : values) {
      boolean spark = UTF8String.fromBytes(value).isValid();
      assertThat(JsonDocuments.isValidUtf8(value)).as("%s", java.util.Arrays.toString(value)).isEqualTo(spark);
      valid += spark ? 1 : 0;
    }
    assertThat(valid).as("both answers are common").isBetween(1_000, values.size() - 1_000);
  }

  private static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }
}
